"""The balance transactions each money movement produces (DESIGN §9): amounts, signs, fee + tax + net =
amount, availability two days on; an invoice's charge writes none (its invoice's `subscription` row
books it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_server.billing.domain.invoice import BillingReason, Invoice, merchant_credit
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import AVAILABILITY_DELAY, LedgerEntry, TransactionType
from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
from core_server.payments.domain.payment import PaymentMethodType, PaymentOutcome, PaypalDetails
from tests.support.charge_states import NOW, authorized, captured
from tests.unit.billing.test_invoice import USD_LINES, tax_rate

SECOND = NOW.replace(microsecond=0)


def kinds(entries: list[LedgerEntry]) -> list[tuple[TransactionType, int, int, int, int]]:
    return [(e.type, e.amount, e.fee, e.tax, e.net) for e in entries]


def test_a_capture_credits_the_captured_amount_less_the_fee() -> None:
    charge = authorized(10_000)
    charge.capture(4_000, NOW)
    (entry,) = charge.pending_ledger
    assert (entry.type, entry.source, entry.currency) == (TransactionType.CHARGE, charge.id, "usd")
    assert kinds(charge.pending_ledger) == [(TransactionType.CHARGE, 4_000, 146, 0, 3_854)]
    assert entry.created == SECOND
    assert entry.available_on == SECOND + timedelta(days=2) == SECOND + AVAILABILITY_DELAY


def test_a_one_cent_capture_has_a_one_cent_fee() -> None:
    charge = authorized(100)
    charge.capture(1, NOW)
    assert kinds(charge.pending_ledger) == [(TransactionType.CHARGE, 1, 1, 0, 0)]
    assert (charge.fee, charge.net) == (1, 0)


def test_refunds_are_negative_rows_without_a_fee() -> None:
    charge = captured(10_000)
    charge.pending_ledger.clear()  # the capture's turn committed
    first = charge.refund("re_1", 2_500, None, NOW)
    second = charge.refund("re_2", None, "duplicate", NOW)
    assert [e.source for e in charge.pending_ledger] == [first.id, second.id]
    assert kinds(charge.pending_ledger) == [
        (TransactionType.REFUND, -2_500, 0, 0, -2_500),
        (TransactionType.REFUND, -7_500, 0, 0, -7_500),
    ]


def test_a_dispute_debits_the_amount_at_stake_and_the_fee_and_a_won_one_gives_both_back() -> None:
    charge = captured(10_000)
    charge.refund("re_1", 1_000, None, NOW)
    charge.pending_ledger.clear()
    dispute = charge.open_dispute("dp_1", NOW)
    assert kinds(charge.pending_ledger) == [(TransactionType.DISPUTE, -9_000, 1_500, 0, -10_500)]
    charge.pending_ledger.clear()
    charge.close_dispute("won", NOW + timedelta(days=5))
    (won,) = charge.pending_ledger
    assert (won.type, won.source, won.amount, won.fee, won.net) == (
        TransactionType.DISPUTE_WON,
        dispute.id,
        9_000,
        -1_500,
        10_500,
    )
    assert won.created == SECOND + timedelta(days=5)


def test_a_lost_dispute_writes_nothing_more() -> None:
    charge = captured(10_000)
    charge.open_dispute("dp_1", NOW)
    charge.pending_ledger.clear()
    charge.close_dispute("lost", NOW)
    assert charge.pending_ledger == []


def test_transitions_without_money_write_no_row() -> None:
    charge = authorized(10_000)
    charge.void(NOW)
    assert charge.pending_ledger == []


def _payment(amount: int) -> InvoicePayment:
    return InvoicePayment(
        invoice_id="si_" + "0" * 32,
        attempt=1,
        amount=amount,
        currency="usd",
        description="Invoice",
        customer_email=None,
        method=PaymentMethodType.PAYPAL,
        details=PaypalDetails(email="buyer@example.com"),
    )


def test_an_invoices_charge_writes_no_charge_row() -> None:
    approved = PaymentOutcome(approved=True, transaction_id="t1")
    charge = invoice_charge("ch_1", "acct_1", Environment.TEST, _payment(2_000), approved, NOW)
    assert charge.amount_captured == 2_000
    assert charge.pending_ledger == []


def _paid_invoice(rate_percentage: str | None) -> Invoice:
    at = datetime(2026, 5, 1, tzinfo=UTC)
    rate = tax_rate(rate_percentage) if rate_percentage else None
    invoice = Invoice.draft(
        "si_" + "1" * 32,
        "acct_1",
        Environment.TEST,
        "sub_1",
        "cus_1",
        "usd",
        USD_LINES,
        rate,
        BillingReason.SUBSCRIPTION_CYCLE,
        at,
        at + timedelta(days=30),
        at,
    )
    invoice.open()
    invoice.record_payment("ch_1", at + timedelta(hours=1))
    return invoice


@pytest.mark.parametrize("rate", [None, "8.25"])
def test_a_paid_invoice_books_one_subscription_row_of_its_total_fee_tax_and_net(rate: str | None) -> None:
    invoice = _paid_invoice(rate)
    assert invoice.ledger_entry() is None  # no credit computed yet (the subscription computes it)
    invoice.merchant_fee_cents, invoice.merchant_net_cents = merchant_credit(
        invoice.total_cents, invoice.tax_cents
    )
    entry = invoice.ledger_entry()
    assert entry is not None
    assert (entry.type, entry.source, entry.currency) == (TransactionType.SUBSCRIPTION, invoice.id, "usd")
    assert (entry.amount, entry.fee, entry.tax, entry.net) == (
        invoice.total_cents,
        invoice.merchant_fee_cents,
        invoice.tax_cents,
        invoice.merchant_net_cents,
    )
    assert entry.created == invoice.paid_at


def test_an_unpaid_invoice_books_nothing() -> None:
    invoice = _paid_invoice(None)
    invoice.status = invoice.status.__class__("OPEN")
    invoice.merchant_fee_cents, invoice.merchant_net_cents = 10, 10
    assert invoice.ledger_entry() is None


def test_a_row_that_does_not_add_up_is_refused() -> None:
    with pytest.raises(ValueError):
        LedgerEntry(TransactionType.CHARGE, "ch_1", 100, 33, 0, 66, "usd", NOW)
