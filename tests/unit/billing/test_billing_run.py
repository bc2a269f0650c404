"""The billing run's steps on one subscription: period ends, trials, cancel at period end, the dunning
schedule (+3, +8, +15 days, then UNPAID and the cancel 30 days later) and the daily notices — each at
its own due time, in order, as a clock advanced over months replays them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.billing.domain.billing_run import StepKind, apply_step, next_step, notice_time
from core_server.billing.domain.invoice import BillingReason, InvoiceStatus, LineKind
from core_server.billing.domain.subscription import Subscription, SubscriptionStatus
from core_server.billing.domain.subscription_item import ItemProration, ItemStatus
from tests.unit.billing.test_subscription import START, price, rate, started

FEB = datetime(2026, 2, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def pay_first(subscription: Subscription) -> None:
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(invoice, "ch_first", True, START)
    subscription.invoices.clear()
    subscription.pending_events.clear()


def test_a_period_end_bills_the_next_period_with_its_items_and_pending_prorations() -> None:
    subscription = started()
    pay_first(subscription)
    seat = subscription.add_item(
        price("price_seat", 1000), 2, ItemProration.DEFER_TO_NEXT_CYCLE, {}, None, START + 15 * DAY + DAY / 2
    )
    gone = subscription.add_item(price("price_gone", 500), 1, ItemProration.NONE, {}, None, START)
    subscription.remove_item(gone.id, False, START + DAY)
    assert next_step(subscription, FEB - timedelta(seconds=1)) is not None  # the upcoming notice
    step = next_step(subscription, FEB)
    while step is not None and step.kind is not StepKind.PERIOD_END:
        apply_step(subscription, step, None)
        step = next_step(subscription, FEB)
    assert step is not None and step.at == FEB
    invoice = apply_step(subscription, step, None)
    assert invoice is not None and invoice.billing_reason is BillingReason.SUBSCRIPTION_CYCLE
    assert (subscription.current_period_start, subscription.current_period_end) == (
        FEB,
        datetime(2026, 3, 1, tzinfo=UTC),
    )
    # base 3100 + 2 seats 2000 + the half-period proration of the seats 1000; the removed item is gone
    assert [(line.kind, line.amount_cents) for line in invoice.lines] == [
        (LineKind.SUBSCRIPTION, 3100),
        (LineKind.ADDON, 2000),
        (LineKind.PAST_DUE_PRORATION, 1000),
    ]
    assert invoice.total_cents == 6100 and invoice.created == FEB
    assert gone.status is ItemStatus.REMOVED and seat.status is ItemStatus.ACTIVE
    assert "invoice.created" in [event.type for event in subscription.pending_events]


def test_cancel_at_period_end_cancels_then_without_an_invoice() -> None:
    subscription = started()
    pay_first(subscription)
    subscription.cancel(True, START + DAY)
    step = next_step(subscription, FEB + DAY)
    assert step is not None and step.kind is StepKind.PERIOD_END  # no notice for a subscription that ends
    assert apply_step(subscription, step, None) is None
    assert subscription.status is SubscriptionStatus.CANCELED and subscription.canceled_at == FEB
    assert subscription.cancel_reason == "cancel_at_period_end"
    assert next_step(subscription, FEB + 100 * DAY) is None


def test_a_trial_that_ended_becomes_active_and_is_billed_from_its_end() -> None:
    subscription = started(price(trial=14))
    trial_end = START + 14 * DAY
    notice = next_step(subscription, trial_end)
    assert notice is not None and notice.kind is StepKind.TRIAL_NOTICE and notice.at == START + 11 * DAY
    apply_step(subscription, notice, None)
    step = next_step(subscription, trial_end)
    assert step is not None and step.kind is StepKind.TRIAL_END
    invoice = apply_step(subscription, step, None)
    assert subscription.status is SubscriptionStatus.ACTIVE
    assert invoice is not None and (invoice.period_start, invoice.period_end) == (
        trial_end,
        datetime(2026, 2, 15, tzinfo=UTC),
    )
    assert [event.type for event in subscription.pending_events].count("subscription.trial_will_end") == 1


def test_dunning_retries_on_days_3_8_and_15_then_unpaid_then_canceled_30_days_later() -> None:
    subscription = started()
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(invoice, "ch_1", False, START)
    assert subscription.status is SubscriptionStatus.PAST_DUE
    for day, next_day in ((3, 8), (8, 15)):
        step = next_step(subscription, START + 100 * DAY)
        assert step is not None and (step.kind, step.at) == (StepKind.RETRY, START + day * DAY)
        assert apply_step(subscription, step, None) is invoice
        subscription.record_attempt(invoice, f"ch_day{day}", False, step.at)
        assert invoice.next_attempt_at == START + next_day * DAY
    last = next_step(subscription, START + 100 * DAY)
    assert last is not None and last.at == START + 15 * DAY
    subscription.record_attempt(invoice, "ch_day15", False, last.at)
    assert invoice.status is InvoiceStatus.UNCOLLECTIBLE and invoice.attempt_count == 4
    assert subscription.status is SubscriptionStatus.UNPAID and subscription.unpaid_at == START + 15 * DAY
    cancel = next_step(subscription, START + 100 * DAY)
    assert cancel is not None and (cancel.kind, cancel.at) == (StepKind.UNPAID_CANCEL, START + 45 * DAY)
    apply_step(subscription, cancel, None)
    assert subscription.status is SubscriptionStatus.CANCELED
    assert subscription.cancel_reason == "payment_failed" and subscription.canceled_at == START + 45 * DAY


def test_a_retry_that_succeeds_on_day_8_makes_it_active_again() -> None:
    subscription = started()
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(invoice, "ch_1", False, START)
    subscription.record_attempt(invoice, "ch_2", False, START + 3 * DAY)
    subscription.record_attempt(invoice, "ch_3", True, START + 8 * DAY)
    assert invoice.status is InvoiceStatus.PAID and invoice.attempt_count == 3
    assert subscription.status is SubscriptionStatus.ACTIVE
    # The merchant's credit: fee round_half_up(3100 × 0.029 + 30) = 120, net 3100 − 120 − 0 = 2980.
    assert (invoice.merchant_fee_cents, invoice.merchant_net_cents) == (120, 2980)


def test_notices_go_out_at_midnight_once_per_period() -> None:
    assert notice_time(START, FEB) == datetime(2026, 1, 29, tzinfo=UTC)
    noon = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
    assert notice_time(noon, noon + 14 * DAY) == datetime(
        2026, 1, 22, tzinfo=UTC
    )  # 21 Jan 12:00 → next midnight
    assert notice_time(START, START + DAY) == START  # a daily period: announced as it begins
    assert notice_time(noon, noon + DAY / 2) is None  # no midnight before the end
    subscription = started()
    pay_first(subscription)
    step = next_step(subscription, datetime(2026, 1, 30, tzinfo=UTC))
    assert step is not None and step.kind is StepKind.UPCOMING_NOTICE
    apply_step(subscription, step, rate("19"))
    assert next_step(subscription, datetime(2026, 1, 31, tzinfo=UTC)) is None
    assert [event.type for event in subscription.pending_events] == ["invoice.upcoming"]
    # The event shows the invoice the period end will make: February, 3100 + 19 % = 589 tax.
    upcoming = subscription.upcoming
    assert upcoming is not None and (upcoming.period_start, upcoming.period_end) == (
        FEB,
        datetime(2026, 3, 1, tzinfo=UTC),
    )
    assert (upcoming.subtotal_cents, upcoming.tax_cents, upcoming.total_cents) == (3100, 589, 3689)
    assert subscription.invoices == []  # announced, not made


def test_a_year_replayed_at_once_bills_twelve_periods_in_order() -> None:
    subscription = started()
    pay_first(subscription)
    year_later = START.replace(year=2027)
    periods = []
    while (step := next_step(subscription, year_later)) is not None:
        invoice = apply_step(subscription, step, None)
        if invoice is not None:
            subscription.record_attempt(invoice, f"ch_{step.at:%m}", True, step.at)
            periods.append(invoice.period_start.month)
    assert periods == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1]
    assert (
        subscription.current_period_start == year_later and subscription.status is SubscriptionStatus.ACTIVE
    )
