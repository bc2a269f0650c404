"""The sandbox simulator: fixed test cards and PayPal accounts decide every TEST payment."""

from __future__ import annotations

import secrets

from core_server.domain.card import CardInput
from core_server.domain.payment import PaymentOutcome, declined

# Spec: "Sandbox test cards (TEST charges only)".
TEST_CARD_DECLINES: dict[str, str] = {
    "4000000000000002": "generic_decline",
    "4000000000009995": "insufficient_funds",
    "4000000000000069": "expired_card",
    "4000000000000127": "incorrect_cvc",
    "4000000000000119": "processing_error",
    "4000000000003220": "authentication_required",
}

PAYPAL_SUCCESS = "success@sandbox.paypal.test"
PAYPAL_DECLINED = "declined@sandbox.paypal.test"
PAYPAL_PENDING = "pending@sandbox.paypal.test"

SIMULATED_FUNDING = "credit"
SIMULATED_COUNTRY = "US"


def sandbox_transaction_id() -> str:
    return "sandbox_txn_" + secrets.token_hex(12)


def simulate_card(card: CardInput) -> PaymentOutcome:
    """Listed numbers decline with their code; other 4… numbers succeed; anything else is declined."""
    code = TEST_CARD_DECLINES.get(card.number)
    if code is not None:
        return declined(code)
    if not card.number.startswith("4"):
        # DESIGN §5: sandbox card numbers that do not start with 4 → generic_decline.
        return declined("generic_decline")
    return PaymentOutcome(approved=True, transaction_id=sandbox_transaction_id())


def simulate_paypal(email: str) -> PaymentOutcome:
    """DESIGN §5: the declined account declines, the pending one authorizes later, others succeed."""
    address = email.strip().lower()
    if address == PAYPAL_DECLINED:
        return declined("generic_decline")
    if address == PAYPAL_PENDING:
        return PaymentOutcome(approved=True, transaction_id=sandbox_transaction_id(), pending=True)
    return PaymentOutcome(approved=True, transaction_id=sandbox_transaction_id())
