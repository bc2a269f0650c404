"""The sandbox simulator: fixed test cards and PayPal accounts decide every TEST payment."""

from __future__ import annotations

import secrets
from enum import StrEnum

from core_server.payments.domain.card import CardInput
from core_server.payments.domain.payment import PaymentOutcome, declined

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
TOKEN_PREFIX = "tok_sandbox_"


class SandboxBehaviour(StrEnum):
    """How the simulator answers a later charge of a vaulted method; travels inside the sealed token."""

    APPROVE = "approve"
    PENDING = "pending"
    """A PayPal account whose payments authorize later."""
    DECLINE_GENERIC = "decline_generic_decline"


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


def sandbox_token(behaviour: SandboxBehaviour) -> str:
    """`tok_sandbox_<behaviour>_<128 random bits>`: unguessable, and self-describing for the simulator."""
    return f"{TOKEN_PREFIX}{behaviour.value}_{secrets.token_hex(16)}"


def token_behaviour(token: str) -> SandboxBehaviour:
    """The behaviour a sandbox token was issued with (for renewals and dunning)."""
    if not token.startswith(TOKEN_PREFIX):
        raise ValueError("not a sandbox token")
    return SandboxBehaviour(token[len(TOKEN_PREFIX) :].rsplit("_", 1)[0])


def simulate_token(token: str) -> PaymentOutcome:
    """A charge of a vaulted method (renewals, dunning): the token says how the simulator answers.

    The pending PayPal account approves at once here: a charge of a PayPal billing agreement is a
    reference transaction, which settles synchronously, unlike the buyer's first approval at checkout.
    A token the simulator did not issue is declined (`generic_decline`), never approved by accident.
    """
    try:
        behaviour = token_behaviour(token)
    except ValueError:
        return declined("generic_decline")
    if behaviour is SandboxBehaviour.DECLINE_GENERIC:
        return declined("generic_decline")
    return PaymentOutcome(approved=True, transaction_id=sandbox_transaction_id())
