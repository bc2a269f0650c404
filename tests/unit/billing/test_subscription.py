"""The Subscription aggregate: the status table, item moves under each proration behaviour, price
changes, and the invoices it opens — with amounts pinned to hand-computed values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from core_server.billing.domain.catalog import Price, PriceTerms
from core_server.billing.domain.invoice import BillingReason, InvoiceLine, InvoiceStatus, LineKind
from core_server.billing.domain.invoice_composition import MAX_INVOICE_LINES
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_changes import PriceProration
from core_server.billing.domain.subscription_item import ItemProration, ItemStatus, PendingProration
from core_server.billing.domain.subscription_lifecycle import PendingCancelRefund
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import InvalidRequest, NotFound, ParameterInvalid, StateConflict

START = datetime(2026, 1, 1, tzinfo=UTC)  # a 31-day January period: 2 678 400 s
JANUARY = 31 * 86_400
MID = START + timedelta(days=15, hours=12)  # 15.5 days left: exactly half of January


def price(
    price_id: str = "price_base",
    amount: int = 3100,
    *,
    currency: str = "usd",
    interval: str = "monthly",
    count: int = 1,
    trial: int | None = None,
    active: bool = True,
) -> Price:
    return Price(
        id=price_id,
        merchant_id="mer_1",
        environment=Environment.TEST,
        plan_id="plan_1",
        terms=PriceTerms(amount, currency, interval, count, trial),
        active=active,
        created=START,
        metadata={},
    )


def started(base: Price | None = None, now: datetime = START) -> Subscription:
    subscription = Subscription.start(
        "sub_" + "a" * 24,
        "mer_1",
        Environment.TEST,
        "cus_1",
        base or price(),
        tax_rate_id=None,
        metadata={},
        now=now,
    )
    # As a create does: the first period is invoiced (and so billed) at once.
    for item in subscription.items:
        item.bill_period()
    subscription.pending_events.clear()
    return subscription


def rate(percentage: str, *, inclusive: bool = False) -> TaxRate:
    return TaxRate(
        id="txr_1",
        merchant_id="mer_1",
        environment=Environment.TEST,
        percentage=Decimal(percentage),
        display_name="VAT",
        jurisdiction=None,
        inclusive=inclusive,
        country="DE",
        state=None,
        active=True,
        created=START,
        metadata={},
    )


def events(subscription: Subscription) -> list[str]:
    return [event.type for event in subscription.pending_events]


# -- creation -------------------------------------------------------------------------------------


def test_without_a_trial_it_starts_active_with_its_first_period_invoiced() -> None:
    subscription = Subscription.start(
        "sub_" + "a" * 24,
        "mer_1",
        Environment.TEST,
        "cus_1",
        price(),
        tax_rate_id=None,
        metadata={},
        now=START,
    )
    assert subscription.status is SubscriptionStatus.ACTIVE
    assert (subscription.current_period_start, subscription.current_period_end) == (
        START,
        datetime(2026, 2, 1, tzinfo=UTC),
    )
    assert [item.is_base_item for item in subscription.items] == [True]
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, rate("19"), START)
    # 3100 + round_half_up(3100 × 0.19 = 589) = 3689
    assert (invoice.status, invoice.subtotal_cents, invoice.tax_cents, invoice.total_cents) == (
        InvoiceStatus.OPEN,
        3100,
        589,
        3689,
    )
    assert [line.kind for line in invoice.lines] == [LineKind.SUBSCRIPTION]
    assert subscription.latest_invoice == invoice.id
    assert events(subscription) == ["subscription.created", "invoice.created"]


def test_with_a_trial_it_starts_trialing_and_nothing_is_billed() -> None:
    subscription = started(price(trial=14))
    assert subscription.status is SubscriptionStatus.TRIALING
    assert subscription.trial_start == START and subscription.trial_end == START + timedelta(days=14)
    assert subscription.current_period_end == subscription.trial_end
    assert subscription.invoices == []


def test_an_archived_price_cannot_start_a_subscription() -> None:
    with pytest.raises(ParameterInvalid) as refused:
        started(price(active=False))
    assert refused.value.param == "price_id"


# -- items ----------------------------------------------------------------------------------------


def test_adding_an_item_mid_period_defers_its_proration_to_the_next_invoice() -> None:
    subscription = started()
    item = subscription.add_item(
        price("price_seat", 1000), 2, ItemProration.DEFER_TO_NEXT_CYCLE, {}, None, MID
    )
    # 1000 × 2 × (15.5 d / 31 d) = 1000 exactly
    assert item.proration_amount_cents == 1000
    [pending] = subscription.prorations
    assert pending.line.kind is LineKind.PAST_DUE_PRORATION and pending.line.amount_cents == 1000
    assert pending.line.proration is not None
    assert pending.line.proration.as_dict() == {
        "seconds_remaining": JANUARY // 2,
        "seconds_total": JANUARY,
        "unit_amount_cents": 1000,
        "quantity_delta": 2,
        "unrounded": "1000",
    }
    assert pending.invoice_id is None and pending.status == "PENDING"
    assert subscription.open_invoice() is None
    assert events(subscription) == ["subscription_item.created"]


def test_charge_immediately_opens_an_invoice_of_the_proration_alone() -> None:
    subscription = started()
    subscription.add_item(price("price_seat", 999), 1, ItemProration.CHARGE_IMMEDIATELY, {}, rate("10"), MID)
    invoice = subscription.open_invoice()
    assert invoice is not None
    # 999 × 1/2 = 499.5 → 500; tax 10 % of 500 = 50
    assert (invoice.subtotal_cents, invoice.tax_cents, invoice.total_cents) == (500, 50, 550)
    assert invoice.billing_reason is BillingReason.SUBSCRIPTION_UPDATE
    assert [p.invoice_id for p in subscription.prorations] == [invoice.id]


def test_none_adds_the_item_without_proration_and_bills_it_from_the_next_period() -> None:
    subscription = started()
    item = subscription.add_item(price("price_seat", 1000), 1, ItemProration.NONE, {}, None, MID)
    assert subscription.prorations == [] and item.proration_amount_cents == 0
    assert item.billed_in(subscription.current_period_end)


def test_quantity_changes_prorate_the_difference_both_ways() -> None:
    subscription = started()
    item = subscription.add_item(price("price_seat", 1000), 1, ItemProration.NONE, {}, None, START)
    subscription.update_item(item.id, 4, None, None, MID)  # +3 × 1000 × 1/2 = 1500
    subscription.update_item(item.id, 2, None, None, MID)  # −2 × 1000 × 1/2 = −1000
    assert item.proration_amount_cents == 0  # the item's own behaviour is none
    # 2 → 3 prorated: none of the 2 was billed, so only the one new seat is charged for the rest.
    subscription.update_item(item.id, 3, ItemProration.DEFER_TO_NEXT_CYCLE, None, MID)
    assert [p.line.amount_cents for p in subscription.prorations] == [500]
    assert item.billed_quantity == 1
    # 3 → 1: the one billed seat is kept, so nothing billed is given up and nothing is credited.
    subscription.update_item(item.id, 1, None, None, MID)
    assert [p.line.amount_cents for p in subscription.prorations] == [500]
    assert item.quantity == 1 and item.proration_amount_cents == 0
    # 1 → 0 is a removal: the billed seat's unused half comes back.
    subscription.remove_item(item.id, True, MID)
    assert [p.line.amount_cents for p in subscription.prorations] == [500, -500]
    assert subscription.prorations[1].line.kind is LineKind.CREDIT


def test_removing_now_credits_the_rest_of_the_period_and_at_period_end_nothing() -> None:
    subscription = started()
    now_item = subscription.add_item(
        price("price_a", 1000), 2, ItemProration.DEFER_TO_NEXT_CYCLE, {}, None, START
    )
    later = subscription.add_item(
        price("price_b", 1000), 1, ItemProration.DEFER_TO_NEXT_CYCLE, {}, None, START
    )
    subscription.prorations.clear()
    subscription.remove_item(now_item.id, True, MID)
    assert now_item.status is ItemStatus.REMOVED and now_item.removed_at == MID
    assert [p.line.amount_cents for p in subscription.prorations] == [-1000]  # 2 × 1000 × 1/2
    subscription.remove_item(later.id, False, MID)
    assert later.status is ItemStatus.ACTIVE and later.removed_at == subscription.current_period_end
    assert len(subscription.prorations) == 1
    assert not later.billed_in(subscription.current_period_end)


def test_the_base_item_can_never_be_removed() -> None:
    subscription = started()
    with pytest.raises(StateConflict):
        subscription.remove_item(subscription.base_item.id, True, MID)


def test_an_unknown_item_is_not_found() -> None:
    with pytest.raises(NotFound):
        started().update_item("si_item_" + "x" * 24, 2, None, None, MID)


@pytest.mark.parametrize(
    ("other", "param"),
    [(price("price_eur", currency="eur"), "priceId"), (price("price_year", interval="yearly"), "priceId")],
)
def test_an_item_in_another_currency_or_interval_is_refused(other: Price, param: str) -> None:
    subscription = started()
    with pytest.raises(ParameterInvalid) as refused:
        subscription.add_item(other, 1, ItemProration.NONE, {}, None, MID)
    assert refused.value.param == param
    assert len(subscription.items) == 1


def test_a_trial_prorates_nothing() -> None:
    subscription = started(price(trial=7))
    subscription.add_item(price("price_seat", 1000), 1, ItemProration.CHARGE_IMMEDIATELY, {}, None, MID)
    assert subscription.prorations == [] and subscription.open_invoice() is None


# -- price changes --------------------------------------------------------------------------------


def test_a_price_change_credits_the_old_price_and_charges_the_new_for_the_rest_of_the_period() -> None:
    subscription = started()
    lines = subscription.change_price(price("price_pro", 6200), PriceProration.CREATE_PRORATIONS, None, MID)
    # credit −3100 × 1/2 = −1550, charge 6200 × 1/2 = 3100
    assert [(line.kind, line.amount_cents) for line in lines] == [
        (LineKind.CREDIT, -1550),
        (LineKind.PAST_DUE_PRORATION, 3100),
    ]
    assert subscription.price_id == "price_pro" and subscription.base_item.unit_amount_cents == 6200
    assert subscription.open_invoice() is None


def test_always_invoice_charges_the_net_of_both_lines_now() -> None:
    subscription = started()
    subscription.change_price(price("price_pro", 6200), PriceProration.ALWAYS_INVOICE, None, MID)
    invoice = subscription.open_invoice()
    assert invoice is not None and invoice.total_cents == 1550


def test_price_change_none_only_switches_the_price() -> None:
    subscription = started()
    assert subscription.change_price(price("price_pro", 6200), PriceProration.NONE, None, MID) == []
    assert subscription.prorations == [] and subscription.price_id == "price_pro"


# -- the status table -----------------------------------------------------------------------------


def test_a_failed_first_charge_makes_it_past_due_and_a_paid_one_bills_its_prorations() -> None:
    subscription = started()
    subscription.add_item(price("price_seat", 1000), 2, ItemProration.DEFER_TO_NEXT_CYCLE, {}, None, MID)
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, None, MID)
    assert invoice.total_cents == 3100 + 2000 + 1000
    subscription.record_attempt(invoice, "ch_1", False, MID)
    assert subscription.status is SubscriptionStatus.PAST_DUE
    assert invoice.attempt_count == 1 and invoice.next_attempt_at == MID + timedelta(days=3)
    assert subscription.prorations[0].status == "PENDING"
    subscription.record_attempt(invoice, "ch_2", True, MID)
    assert subscription.status is SubscriptionStatus.ACTIVE and invoice.status is InvoiceStatus.PAID
    assert subscription.prorations[0].status == "BILLED"
    assert "invoice.payment_failed" in events(subscription) and "invoice.paid" in events(subscription)


@pytest.mark.parametrize(
    "status", [SubscriptionStatus.PAST_DUE, SubscriptionStatus.UNPAID, SubscriptionStatus.PAUSED]
)
def test_moves_are_refused_while_money_is_owed_or_paused(status: SubscriptionStatus) -> None:
    subscription = started()
    subscription.status = status
    with pytest.raises(StateConflict):
        subscription.add_item(price("price_seat"), 1, ItemProration.NONE, {}, None, MID)
    with pytest.raises(StateConflict):
        subscription.change_price(price("price_pro"), PriceProration.NONE, None, MID)
    assert len(subscription.items) == 1 and subscription.price_id == "price_base"


def test_pause_freezes_and_resume_starts_a_new_period_invoiced_at_once() -> None:
    subscription = started()
    subscription.pause(MID)
    assert subscription.status is SubscriptionStatus.PAUSED and subscription.paused_at == MID
    with pytest.raises(StateConflict):
        subscription.pause(MID)
    later = datetime(2026, 3, 10, 8, 0, tzinfo=UTC)
    invoice = subscription.resume(None, later)
    assert subscription.status is SubscriptionStatus.ACTIVE and subscription.paused_at is None
    assert (subscription.current_period_start, subscription.current_period_end) == (
        later,
        datetime(2026, 4, 10, 8, 0, tzinfo=UTC),
    )
    assert invoice.billing_reason is BillingReason.SUBSCRIPTION_RESUME and invoice.total_cents == 3100


def test_resume_is_only_for_a_paused_subscription() -> None:
    with pytest.raises(StateConflict):
        started().resume(None, MID)


def test_cancel_now_or_at_period_end() -> None:
    later = started()
    later.cancel(True, MID)
    assert later.status is SubscriptionStatus.ACTIVE and later.cancel_at_period_end
    now = started()
    now.cancel(False, MID)
    assert now.status is SubscriptionStatus.CANCELED and now.canceled_at == MID
    assert events(now) == ["subscription.canceled"]
    with pytest.raises(StateConflict):
        now.cancel(False, MID)
    with pytest.raises(StateConflict):
        now.pause(MID)
    # The unused half of a 3100 period, owed back on the paid invoice's charge: 1550.
    refunding = started()
    paid = refunding.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    refunding.record_attempt(paid, "ch_paid", True, START)
    refunding.cancel(False, MID, refund_of=paid, key="k1")
    assert refunding.pending_cancel_refund == PendingCancelRefund("ch_paid", 1550)
    assert refunding.cancel_refund_key == "k1"
    refunding.finish_cancel_refund("re_1", MID)
    assert (refunding.pending_cancel_refund, refunding.cancel_refund) == (None, "re_1")


def test_a_proration_below_the_smallest_charge_is_invoiced_now_for_the_balance_to_carry() -> None:
    subscription = started()
    last_day = datetime(2026, 1, 31, tzinfo=UTC)  # 1 day of 31 left: 1000 × 1/31 = 32.26 → 32
    subscription.add_item(price("price_seat", 1000), 1, ItemProration.CHARGE_IMMEDIATELY, {}, None, last_day)
    invoice = subscription.open_invoice()
    assert invoice is not None and invoice.total_cents == 32
    [pending] = subscription.prorations
    assert pending.line.amount_cents == 32 and pending.invoice_id == invoice.id


def test_a_credit_larger_than_the_period_invoice_makes_a_negative_total_and_is_never_lost() -> None:
    subscription = started()
    # 3100 → 1000 at half time: credit −1550, charge 500; the next invoice is 1000 − 1550 + 500 = −50.
    subscription.change_price(price("price_lite", 1000), PriceProration.CREATE_PRORATIONS, None, MID)
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, None, START)
    assert invoice.total_cents == -50
    assert all(p.invoice_id == invoice.id for p in subscription.prorations)


def test_a_none_item_reduced_or_removed_before_it_was_billed_credits_nothing() -> None:
    subscription = started()
    item = subscription.add_item(price("price_seat", 5000), 2, ItemProration.NONE, {}, None, START)
    subscription.update_item(item.id, 1, ItemProration.DEFER_TO_NEXT_CYCLE, None, MID)
    subscription.remove_item(item.id, True, MID)
    assert subscription.prorations == []


def test_a_none_item_billed_in_full_next_period_is_credited_when_removed() -> None:
    subscription = started()
    item = subscription.add_item(price("price_seat", 5000), 2, ItemProration.NONE, {}, None, START)
    subscription.end_period(None, subscription.current_period_end)  # February bills both seats
    assert item.billed_quantity == 2
    feb_mid = datetime(2026, 2, 15, tzinfo=UTC)  # 14 of 28 days left
    subscription.remove_item(item.id, True, feb_mid)
    assert [p.line.amount_cents for p in subscription.prorations] == [-5000]


def test_a_none_price_change_then_a_prorated_one_credits_what_was_billed() -> None:
    subscription = started()  # 3100 billed for January
    subscription.change_price(price("price_big", 100_000), PriceProration.NONE, None, START)
    lines = subscription.change_price(price("price_lite", 1000), PriceProration.CREATE_PRORATIONS, None, MID)
    # The credit returns half of the 3100 billed — not half of the 100 000 never charged.
    assert [line.amount_cents for line in lines] == [-1550, 500]
    assert lines[0].proration is not None and lines[0].proration.unit_amount_cents == 3100


def test_a_resume_in_the_second_the_period_began_goes_on_with_that_period() -> None:
    subscription = started()
    subscription.pause(START)
    assert subscription.resume(None, START) is None
    assert subscription.status is SubscriptionStatus.ACTIVE and subscription.current_period_start == START


def test_the_21st_active_item_is_refused() -> None:
    subscription = started()
    for n in range(19):
        subscription.add_item(price(f"price_{n}", 100), 1, ItemProration.NONE, {}, None, START)
    with pytest.raises(ParameterInvalid) as raised:
        subscription.add_item(price("price_x", 100), 1, ItemProration.NONE, {}, None, START)
    assert raised.value.param == "priceId"
    # A removed item frees its place.
    subscription.remove_item(subscription.items[1].id, True, START)
    subscription.add_item(price("price_x", 100), 1, ItemProration.NONE, {}, None, START)


def test_a_price_whose_next_invoice_could_not_be_charged_is_refused() -> None:
    # 99 999 999 + 8 % tax is above the largest charge: refused in the turn, which the actor discards.
    with pytest.raises(InvalidRequest) as raised:
        started().change_price(price("price_big", 99_999_999), PriceProration.NONE, rate("8"), MID)
    assert (raised.value.code, raised.value.param) == ("amount_too_large", "price_id")


def test_an_item_whose_next_invoice_could_not_be_charged_is_refused() -> None:
    big = price("price_big", 99_999_000)
    with pytest.raises(InvalidRequest) as raised:
        started().add_item(big, 1, ItemProration.NONE, {}, None, MID)
    assert (raised.value.code, raised.value.param) == ("amount_too_large", "priceId")


def test_a_quantity_raise_past_the_largest_charge_is_refused() -> None:
    subscription = started()
    item = subscription.add_item(price("price_seat", 10_000), 1, ItemProration.NONE, {}, None, START)
    with pytest.raises(InvalidRequest) as raised:
        subscription.update_item(item.id, 10_000, None, None, MID)
    assert (raised.value.code, raised.value.param) == ("amount_too_large", "quantity")


def test_past_due_periods_are_invoiced_on_time_each_with_its_own_schedule() -> None:
    subscription = started()
    first = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(first, "ch_1", False, START)
    assert subscription.status is SubscriptionStatus.PAST_DUE
    feb = subscription.end_period(None, subscription.current_period_end)
    assert feb is not None and feb.period_start == datetime(2026, 2, 1, tzinfo=UTC)
    subscription.record_attempt(feb, "ch_2", True, feb.created)
    # February is paid, January still owed: PAST_DUE until January is paid too.
    assert subscription.status is SubscriptionStatus.PAST_DUE
    subscription.record_attempt(first, "ch_3", True, START + timedelta(days=3))
    assert subscription.status is SubscriptionStatus.ACTIVE


def test_a_cancel_marks_what_is_still_open_uncollectible() -> None:
    subscription = started()
    first = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(first, "ch_1", False, START)
    subscription.cancel(False, MID)
    assert first.status is InvoiceStatus.UNCOLLECTIBLE and first.next_attempt_at is None
    assert subscription.owed() == []


def test_a_resume_within_the_paused_period_credits_the_overlap_it_would_bill_twice() -> None:
    subscription = started()  # January billed in full: 3100 for 31 days
    subscription.pause(START + timedelta(days=10))
    resumed_at = START + timedelta(days=15, hours=12)  # 15.5 days of January left
    invoice = subscription.resume(None, resumed_at)
    assert invoice is not None
    # A full new period from the resume, less the half of January already paid.
    assert [line.amount_cents for line in invoice.lines] == [3100, -1550]
    assert subscription.base_item.billed_quantity == 1


def test_a_resume_after_the_paused_period_ended_credits_nothing() -> None:
    subscription = started()
    subscription.pause(START + timedelta(days=10))
    invoice = subscription.resume(None, START + timedelta(days=40))
    assert invoice is not None and [line.amount_cents for line in invoice.lines] == [3100]


def test_an_invoice_carries_at_most_250_lines_and_the_prorations_beyond_wait_for_the_next() -> None:
    subscription = started()
    base_id = subscription.items[0].id
    for n in range(300):
        amount = 10 if n % 2 == 0 else -5
        line = InvoiceLine(LineKind.PAST_DUE_PRORATION, f"p{n}", amount, 1, "price_base", START, START)
        subscription.prorations.append(PendingProration(f"pp_{n:03}", base_id, line, MID))
    preview = subscription.upcoming_invoice(None, MID)
    assert len(preview.lines) == MAX_INVOICE_LINES

    first = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, None, MID)
    assert len(first.lines) == MAX_INVOICE_LINES  # the base item's line and the 249 oldest prorations
    taken = {p.id for p in subscription.prorations if p.invoice_id == first.id}
    assert taken == {f"pp_{n:03}" for n in range(MAX_INVOICE_LINES - 1)}
    waiting = [p for p in subscription.prorations if p.invoice_id is None]
    assert len(waiting) == 300 - (MAX_INVOICE_LINES - 1)  # none lost: they wait

    second = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, None, MID)
    assert len(second.lines) == 1 + len(waiting)
    assert all(p.invoice_id is not None for p in subscription.prorations)
    assert sum(p.line.amount_cents for p in subscription.prorations) == 150 * 10 - 150 * 5
