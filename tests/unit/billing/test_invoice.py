"""The recurring invoice (DESIGN §9): totals under each tax rule, status moves, and the merchant's credit."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from core_server.billing.domain.credit_balance import settle_invoice
from core_server.billing.domain.invoice import (
    BillingReason,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
    LineKind,
    invoice_totals,
    merchant_credit,
    new_invoice_id,
)
from core_server.billing.domain.proration import prorate
from core_server.billing.domain.tax import TaxAmounts, TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import StateConflict

APR_1 = datetime(2026, 4, 1, tzinfo=UTC)
MAY_1 = datetime(2026, 5, 1, tzinfo=UTC)


def tax_rate(percentage: str, *, inclusive: bool = False) -> TaxRate:
    return TaxRate(
        id="txr_1",
        merchant_id="acct_1",
        environment=Environment.TEST,
        percentage=Decimal(percentage),
        display_name="VAT",
        jurisdiction=None,
        inclusive=inclusive,
        country="US",
        state=None,
        active=True,
        created=APR_1,
        metadata={},
    )


def line(kind: LineKind, amount: int, quantity: int = 1) -> InvoiceLine:
    return InvoiceLine(
        kind=kind,
        description=kind.value,
        amount_cents=amount,
        quantity=quantity,
        price_id="price_1",
        period_start=APR_1,
        period_end=MAY_1,
    )


# 2000 + 1000 + 750 − 667 = 3083
USD_LINES = (
    line(LineKind.SUBSCRIPTION, 2000),
    line(LineKind.ADDON, 1000, quantity=2),
    line(LineKind.PAST_DUE_PRORATION, 750),
    line(LineKind.CREDIT, -667),
)
# ¥980 + ¥327 − ¥245 = ¥1062
JPY_LINES = (line(LineKind.SUBSCRIPTION, 980), line(LineKind.ADDON, 327), line(LineKind.CREDIT, -245))


@pytest.mark.parametrize(
    ("lines", "rate", "expected"),
    [
        # no rate: 0 %
        (USD_LINES, None, TaxAmounts(subtotal=3083, tax=0, total=3083)),
        # exclusive 8.25 %: 3083 × 0.0825 = 254.3475 → 254; total 3083 + 254 = 3337
        (USD_LINES, tax_rate("8.25"), TaxAmounts(subtotal=3083, tax=254, total=3337)),
        # inclusive 10 %: 3083 / 1.1 = 2802.727… → 2803; tax 3083 − 2803 = 280
        (USD_LINES, tax_rate("10", inclusive=True), TaxAmounts(subtotal=3083, tax=280, total=3083)),
        # JPY exclusive 10 %: 1062 × 0.1 = 106.2 → ¥106; total ¥1168
        (JPY_LINES, tax_rate("10"), TaxAmounts(subtotal=1062, tax=106, total=1168)),
        # JPY inclusive 8 %: 1062 / 1.08 = 983.33… → 983; tax ¥79
        (JPY_LINES, tax_rate("8", inclusive=True), TaxAmounts(subtotal=1062, tax=79, total=1062)),
        # JPY exclusive 8 % on ¥980: 78.4 → ¥78
        (JPY_LINES[:1], tax_rate("8"), TaxAmounts(subtotal=980, tax=78, total=1058)),
    ],
)
def test_totals_sum_the_lines_credits_included_then_apply_the_rate(
    lines: tuple[InvoiceLine, ...], rate: TaxRate | None, expected: TaxAmounts
) -> None:
    assert invoice_totals(lines, rate) == expected


@pytest.mark.parametrize(
    ("rate", "tax", "total"),
    [
        (None, 0, -500),
        # −500 × 8.25 % = −41.25 → −41 (half-up away from zero), total −541
        (tax_rate("8.25"), -41, -541),
        # inclusive: −500 / 1.1 = −454.5454… → −455, so the tax carved out is −45
        (tax_rate("10", inclusive=True), -45, -500),
        # −2 × 25 % = −0.5 → −1: a tie rounds away from zero
    ],
)
def test_credits_larger_than_the_charges_keep_their_sign_tax_included(
    rate: TaxRate | None, tax: int, total: int
) -> None:
    # DESIGN §10.1: 1000 − 1500 = −500, and the whole negative total goes to the customer's balance.
    lines = (line(LineKind.SUBSCRIPTION, 1000), line(LineKind.CREDIT, -1500))
    assert invoice_totals(lines, rate) == TaxAmounts(subtotal=-500, tax=tax, total=total)


def test_negative_exclusive_tax_rounds_a_tie_away_from_zero() -> None:
    lines = (line(LineKind.CREDIT, -2),)
    assert invoice_totals(lines, tax_rate("25")) == TaxAmounts(subtotal=-2, tax=-1, total=-3)


def test_credits_equal_to_the_charges_give_a_zero_total() -> None:
    lines = (line(LineKind.SUBSCRIPTION, 1000), line(LineKind.CREDIT, -1000))
    assert invoice_totals(lines, tax_rate("8.25")) == TaxAmounts(subtotal=0, tax=0, total=0)


def test_line_as_dict_has_unix_seconds_and_the_proration_inputs() -> None:
    proration = prorate(1000, -1, APR_1, MAY_1, datetime(2026, 4, 11, tzinfo=UTC))
    credit = InvoiceLine(
        kind=LineKind.CREDIT,
        description="Unused time",
        amount_cents=proration.amount_cents,
        quantity=1,
        price_id="price_1",
        period_start=datetime(2026, 4, 11, tzinfo=UTC),
        period_end=MAY_1,
        proration=proration.inputs,
    )
    # 2026-01-01 = 1 767 225 600; Apr 11 = +100 days (31+28+31+10) = +8 640 000; May 1 = +120 days
    assert credit.as_dict() == {
        "kind": "credit",
        "description": "Unused time",
        "amount_cents": -667,
        "quantity": 1,
        "price_id": "price_1",
        "period_start": 1_775_865_600,
        "period_end": 1_777_593_600,
        "proration": {
            "seconds_remaining": 1_728_000,
            "seconds_total": 2_592_000,
            "unit_amount_cents": 1000,
            "quantity_delta": -1,
            "unrounded": "-666.666667",
        },
    }
    assert line(LineKind.ADDON, 500).as_dict()["proration"] is None


def draft(lines: tuple[InvoiceLine, ...] = USD_LINES, rate: TaxRate | None = None) -> Invoice:
    return Invoice.draft(
        invoice_id=new_invoice_id(),
        merchant_id="acct_1",
        environment=Environment.LIVE,
        subscription_id="sub_1",
        customer_id="cus_1",
        currency="usd",
        lines=lines,
        rate=rate,
        billing_reason=BillingReason.SUBSCRIPTION_CYCLE,
        period_start=APR_1,
        period_end=MAY_1,
        now=datetime(2026, 5, 1, 0, 0, 7, 123456, tzinfo=UTC),
    )


def test_draft_carries_the_totals_and_the_rate() -> None:
    invoice = draft(rate=tax_rate("8.25"))
    assert (invoice.subtotal_cents, invoice.tax_cents, invoice.total_cents) == (3083, 254, 3337)
    assert invoice.tax_rate_id == "txr_1"
    assert invoice.status is InvoiceStatus.DRAFT
    assert (invoice.attempt_count, invoice.next_attempt_at, invoice.charge_id, invoice.paid_at) == (
        0,
        None,
        None,
        None,
    )
    assert invoice.created == datetime(2026, 5, 1, 0, 0, 7, tzinfo=UTC)
    assert invoice.livemode is True
    assert draft().tax_rate_id is None


def test_invoice_id_is_si_and_32_lowercase_hex() -> None:
    ids = {new_invoice_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"si_[0-9a-f]{32}", value) for value in ids)


def test_failed_attempts_then_payment() -> None:
    invoice = draft()
    invoice.open()
    assert invoice.status is InvoiceStatus.OPEN
    first = datetime(2026, 5, 1, tzinfo=UTC)
    invoice.record_failure("ch_1", first, first + timedelta(days=3))
    assert invoice.status is InvoiceStatus.OPEN
    assert (invoice.attempt_count, invoice.charge_id, invoice.next_attempt_at) == (
        1,
        "ch_1",
        first + timedelta(days=3),
    )
    paid_at = first + timedelta(days=3, minutes=1)
    invoice.record_payment("ch_2", paid_at)
    assert invoice.status is InvoiceStatus.PAID
    assert (invoice.attempt_count, invoice.charge_id, invoice.paid_at, invoice.next_attempt_at) == (
        2,
        "ch_2",
        paid_at,
        None,
    )


def test_exhausted_retries_make_the_invoice_uncollectible() -> None:
    invoice = draft()
    invoice.open()
    invoice.record_failure("ch_4", datetime(2026, 5, 16, tzinfo=UTC), None)
    invoice.mark_uncollectible()
    assert (invoice.status, invoice.next_attempt_at) == (InvoiceStatus.UNCOLLECTIBLE, None)


@pytest.mark.parametrize("opened", [False, True])
def test_draft_and_open_invoices_can_be_voided(opened: bool) -> None:
    invoice = draft()
    if opened:
        invoice.open()
    invoice.void()
    assert invoice.status is InvoiceStatus.VOID


def test_a_negative_total_settles_without_a_charge() -> None:
    invoice = draft((line(LineKind.SUBSCRIPTION, 1000), line(LineKind.CREDIT, -1200)))
    at = datetime(2026, 5, 1, tzinfo=UTC)
    invoice.settle(settle_invoice(0, invoice.total_cents))
    assert (invoice.credit_applied_cents, invoice.amount_due_cents) == (0, 0)
    invoice.settle_without_charge(at)
    assert (invoice.status, invoice.paid_at, invoice.charge_id, invoice.attempt_count) == (
        InvoiceStatus.PAID,
        at,
        None,
        0,
    )


def test_a_due_of_a_charge_or_more_needs_a_charge() -> None:
    with pytest.raises(ValueError):
        draft().settle_without_charge(datetime(2026, 5, 1, tzinfo=UTC))  # not settled yet
    invoice = draft()
    invoice.settle(settle_invoice(0, invoice.total_cents))
    with pytest.raises(ValueError):
        invoice.settle_without_charge(datetime(2026, 5, 1, tzinfo=UTC))


def test_a_due_below_a_charge_settles_without_one() -> None:
    invoice = draft((line(LineKind.SUBSCRIPTION, 1000),))
    invoice.settle(settle_invoice(980, invoice.total_cents))  # 20 left: carried
    invoice.settle_without_charge(datetime(2026, 5, 1, tzinfo=UTC))
    assert invoice.status is InvoiceStatus.PAID and invoice.ledger_entry() is None


def test_the_next_attempt_must_come_after_the_failure() -> None:
    invoice = draft()
    invoice.open()
    at = datetime(2026, 5, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        invoice.record_failure("ch_1", at, at)


def _in(status: InvoiceStatus) -> Invoice:
    invoice = draft()
    invoice.status = status
    return invoice


AT = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "move"),
    [
        (InvoiceStatus.OPEN, Invoice.open),
        (InvoiceStatus.PAID, Invoice.open),
        (InvoiceStatus.DRAFT, lambda i: i.record_payment("ch_1", AT)),
        (InvoiceStatus.PAID, lambda i: i.record_payment("ch_1", AT)),
        (InvoiceStatus.VOID, lambda i: i.record_payment("ch_1", AT)),
        (InvoiceStatus.DRAFT, lambda i: i.record_failure("ch_1", AT, None)),
        (InvoiceStatus.UNCOLLECTIBLE, lambda i: i.record_failure("ch_1", AT, None)),
        (InvoiceStatus.DRAFT, Invoice.mark_uncollectible),
        (InvoiceStatus.PAID, Invoice.mark_uncollectible),
        (InvoiceStatus.PAID, Invoice.void),
        (InvoiceStatus.UNCOLLECTIBLE, Invoice.void),
        (InvoiceStatus.VOID, Invoice.void),
        (InvoiceStatus.PAID, lambda i: i.settle_without_charge(AT)),
        (InvoiceStatus.VOID, lambda i: i.settle_without_charge(AT)),
    ],
)
def test_moves_the_status_does_not_allow_are_invalid_state(status: InvoiceStatus, move: object) -> None:
    invoice = _in(status)
    before = (invoice.attempt_count, invoice.charge_id, invoice.paid_at)
    with pytest.raises(StateConflict) as refused:
        move(invoice)  # type: ignore[operator]
    assert refused.value.code == "invalid_state"
    assert invoice.status is status
    assert (invoice.attempt_count, invoice.charge_id, invoice.paid_at) == before


@pytest.mark.parametrize(
    ("total", "tax", "fee", "net"),
    [
        # 3337 × 0.029 + 30 = 126.773 → 127; net 3337 − 127 − 254 = 2956
        (3337, 254, 127, 2956),
        # 500 × 0.029 + 30 = 44.5 → 45 (half-up); net 455
        (500, 0, 45, 455),
        # 40 × 0.029 + 30 = 31.16 → 31; net 40 − 31 − 3 = 6
        (40, 3, 31, 6),
        # 30 × 0.029 + 30 = 30.87 → 31, capped at what the tax leaves (30 − 3 = 27): fee 27, net 0
        (30, 3, 27, 0),
        # 33 × 0.029 + 30 = 30.957 → 31 > 33 − 3: fee 30, net 0 (fee + tax + net = total)
        (33, 3, 30, 0),
        # 40 with no tax: fee 31, net 9
        (40, 0, 31, 9),
        # ¥1168 (tax ¥106): 1168 × 0.029 + 30 = 63.872 → 64; net 1168 − 64 − 106 = 998
        (1168, 106, 64, 998),
    ],
)
def test_merchant_credit(total: int, tax: int, fee: int, net: int) -> None:
    assert merchant_credit(total, tax) == (fee, net)
    assert fee + tax + net == total


def test_enum_values_are_the_public_strings() -> None:
    assert [k.value for k in LineKind] == ["subscription", "addon", "past_due_proration", "credit"]
    assert [s.value for s in InvoiceStatus] == ["DRAFT", "OPEN", "PAID", "UNCOLLECTIBLE", "VOID"]
    assert [r.value for r in BillingReason] == [
        "subscription_create",
        "subscription_cycle",
        "subscription_update",
        "subscription_resume",
    ]
