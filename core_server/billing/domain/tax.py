"""Tax rates: the percentage as an exact decimal, which rate applies, and the two formulas (DESIGN §9).

Money never passes through a float: the percentage is a Decimal parsed from its string, amounts are
integer minor units, and every rounding is half-up on the exact decimal (`round_half_up`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.money import round_half_up

MAX_PERCENTAGE = Decimal(100)
"""Exclusive bound: a 100 % rate would make an inclusive price all tax."""
MAX_PERCENTAGE_DECIMALS = 4
MAX_DISPLAY_NAME = 100
MAX_JURISDICTION = 100
MAX_STATE = 50
ZERO = Decimal(0)
HUNDRED = Decimal(100)


@dataclass(frozen=True, slots=True)
class TaxRate:
    id: str
    merchant_id: str
    environment: Environment
    percentage: Decimal
    display_name: str
    jurisdiction: str | None
    inclusive: bool
    country: str | None
    state: str | None
    active: bool
    created: datetime
    metadata: dict[str, str]

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


@dataclass(frozen=True, slots=True)
class TaxAmounts:
    """What one subtotal becomes under one rate: `total` is what the customer pays."""

    subtotal: int
    tax: int
    total: int


def parse_percentage(raw: object) -> Decimal:
    """A decimal string (or an integer) with 0 ≤ p < 100 and at most 4 decimals; anything else is refused.

    Floats are refused: 8.25 as a binary float is not 8.25, and a tax rate must be exact.
    """
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise ParameterInvalid('percentage must be a decimal string such as "8.25".', param="percentage")
    text = str(raw).strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or "e" in text.lower():
        raise ParameterInvalid('percentage must be a decimal string such as "8.25".', param="percentage")
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > MAX_PERCENTAGE_DECIMALS:
        message = f"percentage takes at most {MAX_PERCENTAGE_DECIMALS} decimals."
        raise ParameterInvalid(message, param="percentage")
    if not ZERO <= value < MAX_PERCENTAGE:
        raise ParameterInvalid("percentage must be at least 0 and below 100.", param="percentage")
    return value


def format_percentage(value: Decimal) -> str:
    """The public string: "8.25", "10", "0.0001" — trailing zeros dropped, never an exponent."""
    if value == ZERO:
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def normalize_country(country: str | None) -> str | None:
    """ISO 3166-1 alpha-2, compared upper-case; None or "" means any country."""
    if country is None or country.strip() == "":
        return None
    code = country.strip().upper()
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        raise ParameterInvalid("country must be a two-letter ISO 3166-1 code.", param="country")
    return code


def normalize_state(state: str | None) -> str | None:
    """A region code or name, compared upper-case; None or "" means the whole country."""
    if state is None or state.strip() == "":
        return None
    if len(state) > MAX_STATE:
        raise ParameterInvalid(f"state must be at most {MAX_STATE} characters.", param="state")
    return state.strip().upper()


def validate_display_name(display_name: str) -> str:
    name = display_name.strip()
    if name == "":
        raise ParameterInvalid("display_name must not be empty.", param="display_name")
    if len(name) > MAX_DISPLAY_NAME:
        message = f"display_name must be at most {MAX_DISPLAY_NAME} characters."
        raise ParameterInvalid(message, param="display_name")
    return name


def validate_jurisdiction(jurisdiction: str | None) -> str | None:
    if jurisdiction is None or jurisdiction.strip() == "":
        return None
    if len(jurisdiction) > MAX_JURISDICTION:
        message = f"jurisdiction must be at most {MAX_JURISDICTION} characters."
        raise ParameterInvalid(message, param="jurisdiction")
    return jurisdiction.strip()


def resolve_rate(
    subscription_rate: TaxRate | None,
    merchant_rates: Iterable[TaxRate],
    country: str | None,
    state: str | None,
) -> TaxRate | None:
    """DESIGN §9: the subscription's rate; else the merchant's active rate for the customer address.

    Country and state first, then the country with no state; None means 0 %. Among equal matches the
    first given wins, so callers pass the rates oldest first and the answer is stable.
    """
    if subscription_rate is not None:
        return subscription_rate
    wanted_country = country.strip().upper() if country else None
    if wanted_country is None:
        return None
    wanted_state = state.strip().upper() if state and state.strip() else None
    country_only: TaxRate | None = None
    for rate in merchant_rates:
        if not rate.active or rate.country != wanted_country:
            continue
        if wanted_state is not None and rate.state == wanted_state:
            return rate
        if rate.state is None and country_only is None:
            country_only = rate
    return country_only


def compute_tax(subtotal: int, percentage: Decimal, *, inclusive: bool) -> TaxAmounts:
    """Exclusive: tax on top. Inclusive: the subtotal already holds the tax, which is carved out."""
    if inclusive:
        net = round_half_up(Decimal(subtotal) / (1 + percentage / HUNDRED))
        return TaxAmounts(subtotal=subtotal, tax=subtotal - net, total=subtotal)
    tax = round_half_up(Decimal(subtotal) * percentage / HUNDRED)
    return TaxAmounts(subtotal=subtotal, tax=tax, total=subtotal + tax)


def apply_rate(subtotal: int, rate: TaxRate | None) -> TaxAmounts:
    """The resolved rate applied; no rate is 0 % (nothing added, nothing carved out)."""
    if rate is None:
        return TaxAmounts(subtotal=subtotal, tax=0, total=subtotal)
    return compute_tax(subtotal, rate.percentage, inclusive=rate.inclusive)
