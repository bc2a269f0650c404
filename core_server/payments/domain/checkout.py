"""Checkout completion input: the payment method the customer chose and its details."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from connect import errors

from core_server.kernel.domain.errors import InvalidRequest, ParameterInvalid
from core_server.kernel.domain.input_rules import validate_email
from core_server.payments.domain.card import CardInput, card_brand, card_fingerprint, validate_card
from core_server.payments.domain.payment import CardDetails, PaymentDetails, PaymentMethodType, PaypalDetails
from core_server.payments.domain.sandbox import SIMULATED_COUNTRY, SIMULATED_FUNDING


@dataclass(frozen=True, slots=True)
class PaymentAttempt:
    method: PaymentMethodType
    card: CardInput | None = None
    paypal_email: str | None = None


def parse_attempt(
    method: str, card: CardInput | None, paypal_email: str | None, now: datetime
) -> PaymentAttempt:
    """Spec step 5 (method is card or paypal), then DESIGN §5 detail checks; the charge stays pending."""
    try:
        kind = PaymentMethodType(method)
    except ValueError as exc:
        raise ParameterInvalid("paymentMethod must be 'card' or 'paypal'.", param="paymentMethod") from exc
    if kind is PaymentMethodType.CARD:
        if card is None:
            raise InvalidRequest(
                "Card details are missing.",
                code=errors.PARAMETER_MISSING.code,
                param="paymentMethodDetails.card_number",
            )
        validate_card(card, now)
        return PaymentAttempt(method=kind, card=card)
    if not paypal_email:
        raise InvalidRequest(
            "The PayPal e-mail is missing.",
            code=errors.PARAMETER_MISSING.code,
            param="paymentMethodDetails.email",
        )
    validate_email(paypal_email, "paymentMethodDetails.email")
    return PaymentAttempt(method=kind, paypal_email=paypal_email)


def describe_payment(attempt: PaymentAttempt, fingerprint_key: bytes) -> PaymentDetails:
    """The stored description: brand, last4, expiry, funding, country, fingerprint — or the PayPal e-mail."""
    if attempt.card is not None:
        card = attempt.card
        return CardDetails(
            brand=card_brand(card.number),
            last4=card.number[-4:],
            exp_month=card.exp_month,
            exp_year=card.exp_year,
            funding=SIMULATED_FUNDING,
            country=SIMULATED_COUNTRY,
            fingerprint=card_fingerprint(card.number, fingerprint_key),
        )
    assert attempt.paypal_email is not None
    return PaypalDetails(email=attempt.paypal_email)
