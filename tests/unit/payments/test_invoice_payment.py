"""An invoice's payment attempt as a charge (DESIGN §9): the vaulted token decides, the charge is born
captured or failed, and its public shape names the invoice."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.fees import net_amount, transaction_fee
from core_server.payments.application.charge_view import ChargeViews, charge_view
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
from core_server.payments.domain.payment import (
    UNCONFIGURED_LIVE_PROCESSOR,
    CardDetails,
    PaymentMethodType,
    PaymentOutcome,
    declined,
)
from core_server.payments.domain.sandbox import (
    SandboxBehaviour,
    sandbox_token,
    simulate_token,
    token_behaviour,
)

NOW = datetime(2026, 11, 22, 12, 0, 0, 654321, tzinfo=UTC)
CHARGE_ID = "ch_" + "b" * 32
INVOICE_ID = "si_" + "0123456789abcdef" * 2
CARD = CardDetails("visa", "4242", 12, 2040, "credit", "US", "f" * 32)


def payment(amount: int = 10_000) -> InvoicePayment:
    return InvoicePayment(
        invoice_id=INVOICE_ID,
        attempt=1,
        amount=amount,
        currency="usd",
        description="Pro plan, Nov 2026",
        customer_email="buyer@example.com",
        method=PaymentMethodType.CARD,
        details=CARD,
    )


def build(outcome: PaymentOutcome, amount: int = 10_000) -> Charge:
    return invoice_charge(CHARGE_ID, "acct_1", Environment.TEST, payment(amount), outcome, NOW)


@pytest.mark.parametrize(
    ("behaviour", "approved", "code"),
    [
        (SandboxBehaviour.APPROVE, True, None),
        # A PayPal billing agreement's reference transaction settles at once, unlike checkout's approval.
        (SandboxBehaviour.PENDING, True, None),
        (SandboxBehaviour.DECLINE_GENERIC, False, "generic_decline"),
    ],
)
def test_a_vaulted_token_tells_the_simulator_how_to_answer(
    behaviour: SandboxBehaviour, approved: bool, code: str | None
) -> None:
    outcome = simulate_token(sandbox_token(behaviour))
    assert outcome.approved is approved and outcome.error_code == code and not outcome.pending
    if approved:
        assert outcome.transaction_id is not None and outcome.transaction_id.startswith("sandbox_txn_")


def test_a_token_the_simulator_never_issued_is_declined_not_approved() -> None:
    assert simulate_token("tok_live_123").error_code == "generic_decline"


def test_the_token_codec_round_trips_and_billing_still_names_it() -> None:
    from core_server.billing.domain import payment_method

    token = sandbox_token(SandboxBehaviour.DECLINE_GENERIC)
    assert token_behaviour(token) is SandboxBehaviour.DECLINE_GENERIC
    assert payment_method.token_behaviour is token_behaviour
    assert payment_method.SandboxBehaviour is SandboxBehaviour


def test_an_approved_attempt_is_captured_at_once_with_the_fee_of_any_capture() -> None:
    charge = build(PaymentOutcome(approved=True, transaction_id="sandbox_txn_1"), amount=500)
    assert charge.status is ChargeStatus.CAPTURED
    assert charge.amount_captured == 500
    assert charge.fee == transaction_fee(500) == 45 and charge.net == net_amount(500) == 455
    assert charge.authorized_at == charge.captured_at == NOW
    assert charge.created == NOW.replace(microsecond=0)
    assert (charge.invoice_id, charge.invoice_attempt) == (INVOICE_ID, 1)
    assert charge.payment_method is PaymentMethodType.CARD and charge.payment_details == CARD
    assert charge.transaction_id == "sandbox_txn_1"
    assert [e.type for e in charge.pending_events] == ["charge.created", "charge.completed"]


def test_a_declined_attempt_fails_with_its_code() -> None:
    charge = build(declined("generic_decline"))
    assert charge.status is ChargeStatus.FAILED and charge.failure_code == "generic_decline"
    assert charge.amount_captured is None and charge.fee is None
    assert [e.type for e in charge.pending_events] == ["charge.created", "charge.failed"]


def test_no_timer_ever_applies_to_an_invoice_charge() -> None:
    charge = build(PaymentOutcome(approved=True, transaction_id="t"))
    assert charge.seen_at(datetime(2030, 1, 1, tzinfo=UTC)) is charge
    assert charge.expire_if_due(datetime(2030, 1, 1, tzinfo=UTC)) is False


def test_without_the_processor_s_answer_there_is_no_invoice_charge() -> None:
    with pytest.raises(ValueError):
        build(UNCONFIGURED_LIVE_PROCESSOR)


def test_the_view_names_the_invoice_of_an_invoice_charge_only() -> None:
    charge = build(PaymentOutcome(approved=True, transaction_id="t"))
    view = charge_view(charge, "http://checkout.test")
    assert view["invoice"] == INVOICE_ID
    assert view["status"] == "captured" and view["fee"] == charge.fee
    events = ChargeViews("http://checkout.test").events(charge)
    assert [e.type for e in events] == ["charge.created", "charge.completed"]

    charge.invoice_id = charge.invoice_attempt = None
    assert "invoice" not in charge_view(charge, "http://checkout.test")
