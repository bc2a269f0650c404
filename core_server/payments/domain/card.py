"""Card input checks, brand detection and the keyed fingerprint: the only card logic we keep."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

from connect import errors

from core_server.kernel.domain.errors import InvalidRequest, ParameterInvalid

_PARAM = "paymentMethodDetails"


@dataclass(frozen=True, slots=True)
class CardInput:
    """What the customer typed. Lives only for the length of one request; never stored or logged."""

    number: str
    exp_month: int
    exp_year: int
    cvc: str

    def __repr__(self) -> str:  # never let a number or CVC reach a log through repr()
        return f"CardInput(last4={self.number[-4:]!r}, exp={self.exp_month}/{self.exp_year})"


def validate_card(card: CardInput, now: datetime) -> None:
    """DESIGN §5/§5a: malformed details → 400 and the charge stays pending."""
    number = card.number
    if not number:
        raise InvalidRequest(
            "The card number is missing.", code=errors.PARAMETER_MISSING.code, param=f"{_PARAM}.card_number"
        )
    if not number.isdigit() or not 13 <= len(number) <= 19:
        raise ParameterInvalid("The card number must be 13 to 19 digits.", param=f"{_PARAM}.card_number")
    if not 1 <= card.exp_month <= 12:
        raise ParameterInvalid("The expiry month must be 1 to 12.", param=f"{_PARAM}.exp_month")
    if card.exp_year < 1000 or card.exp_year > 9999:
        raise ParameterInvalid("The expiry year must have four digits.", param=f"{_PARAM}.exp_year")
    if (card.exp_year, card.exp_month) < (now.year, now.month):
        raise ParameterInvalid("The card's expiry date is in the past.", param=f"{_PARAM}.exp_year")
    if not card.cvc.isdigit() or not 3 <= len(card.cvc) <= 4:
        raise ParameterInvalid("The CVC must be 3 or 4 digits.", param=f"{_PARAM}.cvc")


def card_brand(number: str) -> str:
    """Brand by IIN prefix; enough for display, not for routing."""
    if number.startswith("4"):
        return "visa"
    if number[:2] in {"51", "52", "53", "54", "55"} or "2221" <= number[:4] <= "2720":
        return "mastercard"
    if number[:2] in {"34", "37"}:
        return "amex"
    if number.startswith("6011") or number.startswith("65"):
        return "discover"
    return "unknown"


def card_fingerprint(number: str, key: bytes) -> str:
    """HMAC of the number with a platform key: equal cards match, the number cannot be recovered."""
    return hmac.new(key, number.encode(), hashlib.sha256).hexdigest()[:32]
