"""A charge that paid an invoice returns its tax share on refunds and disputes (DESIGN §10.2): the rows
its transitions write, and what the merchant keeps of the invoice in the end."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import (
    LedgerEntry,
    TransactionType,
    invoice_fee,
    invoice_tax_share,
    subscription_entry,
)
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
from core_server.payments.domain.payment import PaymentMethodType, PaymentOutcome, PaypalDetails
from tests.support.charge_states import NOW, captured

INVOICE = "si_" + "0" * 32


def taxed_charge(amount: int, tax: int) -> Charge:
    payment = InvoicePayment(
        invoice_id=INVOICE,
        attempt=1,
        amount=amount,
        currency="usd",
        description="Invoice",
        customer_email=None,
        method=PaymentMethodType.PAYPAL,
        details=PaypalDetails(email="buyer@example.com"),
        tax=tax,
    )
    approved = PaymentOutcome(approved=True, transaction_id="t1")
    return invoice_charge("ch_1", "acct_1", Environment.TEST, payment, approved, NOW)


def booked(invoice_tax: int, invoice_total: int, charged: int) -> LedgerEntry:
    """The `subscription` row of the invoice paid by a charge of `charged` (DESIGN §10.2)."""
    tax = invoice_tax_share(invoice_tax, invoice_total, charged)
    return subscription_entry(INVOICE, charged, invoice_fee(charged, tax), tax, "usd", NOW)


def rows(charge: Charge) -> list[tuple[TransactionType, int, int, int, int]]:
    return [(e.type, e.amount, e.fee, e.tax, e.net) for e in charge.pending_ledger]


def test_an_invoice_charge_carries_its_tax_share_and_writes_no_row_of_its_own() -> None:
    charge = taxed_charge(10_800, 800)
    assert charge.tax == 800 and charge.amount_captured == 10_800
    assert charge.pending_ledger == []


def test_a_full_refund_of_a_paid_invoice_costs_the_merchant_only_the_fee() -> None:
    """The audit's case: before, −10,800 with tax 0 left the merchant at −1,143."""
    paid = booked(800, 10_800, 10_800)
    assert (paid.amount, paid.fee, paid.tax, paid.net) == (10_800, 343, 800, 9_657)
    charge = taxed_charge(10_800, 800)
    charge.refund("re_1", None, None, NOW)
    assert rows(charge) == [(TransactionType.REFUND, -10_800, 0, -800, -10_000)]
    assert paid.net + sum(e.net for e in charge.pending_ledger) == -343


def test_two_half_refunds_return_half_the_tax_each() -> None:
    charge = taxed_charge(10_800, 800)
    charge.refund("re_1", 5_400, None, NOW)
    charge.refund("re_2", 5_400, None, NOW)
    assert rows(charge) == [
        (TransactionType.REFUND, -5_400, 0, -400, -5_000),
        (TransactionType.REFUND, -5_400, 0, -400, -5_000),
    ]
    assert booked(800, 10_800, 10_800).net + sum(e.net for e in charge.pending_ledger) == -343


def test_a_tax_of_one_cent_on_two_cents_refunded_cent_by_cent_is_returned_once() -> None:
    charge = taxed_charge(2, 1)
    charge.refund("re_1", 1, None, NOW)
    charge.refund("re_2", 1, None, NOW)
    assert [e.tax for e in charge.pending_ledger] == [-1, 0]


def test_a_dispute_after_a_partial_refund_returns_the_rest_of_the_tax() -> None:
    charge = taxed_charge(10_800, 800)
    charge.refund("re_1", 1_000, None, NOW)  # 74.07… → 74
    charge.open_dispute("dp_1", NOW)
    assert rows(charge) == [
        (TransactionType.REFUND, -1_000, 0, -74, -926),
        (TransactionType.DISPUTE, -9_800, 1_500, -726, -10_574),
    ]
    assert sum(e.tax for e in charge.pending_ledger) == -800
    # Lost: the merchant is out the fee and the dispute fee, and no tax.
    assert booked(800, 10_800, 10_800).net + sum(e.net for e in charge.pending_ledger) == -343 - 1_500


def test_a_won_dispute_takes_the_tax_back_with_the_amount_and_fee_and_a_later_refund_returns_it() -> None:
    charge = taxed_charge(10_800, 800)
    charge.refund("re_1", 1_000, None, NOW)
    charge.open_dispute("dp_1", NOW)
    charge.pending_ledger.clear()
    charge.close_dispute("won", NOW + timedelta(days=5))
    assert rows(charge) == [(TransactionType.DISPUTE_WON, 9_800, -1_500, 726, 10_574)]
    charge.pending_ledger.clear()
    charge.refund("re_2", None, None, NOW + timedelta(days=6))
    assert rows(charge) == [(TransactionType.REFUND, -9_800, 0, -726, -9_074)]


def test_a_lost_dispute_writes_nothing_more() -> None:
    charge = taxed_charge(10_800, 800)
    charge.open_dispute("dp_1", NOW)
    assert rows(charge) == [(TransactionType.DISPUTE, -10_800, 1_500, -800, -11_500)]
    charge.pending_ledger.clear()
    charge.close_dispute("lost", NOW)
    assert charge.pending_ledger == []


def test_a_charge_that_collected_no_tax_returns_none() -> None:
    charge = captured(10_000)
    charge.pending_ledger.clear()
    charge.refund("re_1", 2_500, None, NOW)
    charge.open_dispute("dp_1", NOW)
    assert [e.tax for e in charge.pending_ledger] == [0, 0]


@pytest.mark.parametrize("tax", [-1, 10_801])
def test_a_tax_share_outside_the_amount_is_refused(tax: int) -> None:
    with pytest.raises(ValueError):
        taxed_charge(10_800, tax)
