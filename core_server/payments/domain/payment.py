"""What a payment attempt produced: stored method details and the processor's outcome."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core_server.kernel.domain.state_copies import Immutable


class PaymentMethodType(enum.Enum):
    CARD = "card"
    PAYPAL = "paypal"


@dataclass(frozen=True, slots=True)
class CardDetails(Immutable):
    """The only card data ever stored: never the number or the CVC (DESIGN §5)."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int
    funding: str
    country: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class PaypalDetails(Immutable):
    email: str


PaymentDetails = CardDetails | PaypalDetails


@dataclass(frozen=True, slots=True)
class PaymentOutcome:
    """A processor's answer; a decline is a value, not an exception (saleor's GatewayResponse shape)."""

    approved: bool
    transaction_id: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    pending: bool = False
    """PayPal may authorize asynchronously: approved but not yet final."""
    reached_processor: bool = True
    """False when no processor was asked (LIVE without one): the charge must stay pending."""


# The one sentence per decline code (connect.errors.DECLINE_CODES) the customer reads, on the API's
# `errorMessage`, the checkout page and the portal's card form alike: the pages show the core's message.
DECLINE_MESSAGES: dict[str, str] = {
    "generic_decline": "Your card was declined.",
    "insufficient_funds": "Your card has insufficient funds.",
    "expired_card": "Your card has expired.",
    "incorrect_cvc": "Your card's security code is incorrect.",
    "processing_error": "An error occurred while processing your payment. Try again later.",
    "authentication_required": "Your card requires authentication (3-D Secure), which is not supported here.",
}


def declined(code: str) -> PaymentOutcome:
    return PaymentOutcome(approved=False, error_code=code, error_message=DECLINE_MESSAGES[code])


UNCONFIGURED_LIVE_PROCESSOR = PaymentOutcome(
    approved=False,
    reached_processor=False,
    error_code="processing_error",
    error_message="Live payments are not available: no payment processor is configured.",
)
"""DESIGN §5: a LIVE completion with no live processor never succeeds, and the charge stays pending."""
