"""The billing run's steps on one subscription: period ends, trials, cancel at period end, the dunning
schedule (+3, +8, +15 days, then UNPAID and the cancel 30 days later) and the daily notices — each at
its own due time, in order, as a clock advanced over months replays them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.billing.domain.billing_steps import StepKind, apply_step, next_step, notice_time
from core_server.billing.domain.invoice import BillingReason, Invoice, InvoiceStatus, LineKind
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_item import ItemProration, ItemStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus
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


def test_an_item_removed_at_period_end_is_removed_when_the_subscription_ends_then() -> None:
    subscription = started()
    pay_first(subscription)
    seat = subscription.add_item(price("price_seat", 1000), 1, ItemProration.NONE, {}, None, START)
    subscription.remove_item(seat.id, False, START + DAY)
    assert (seat.status, seat.removed_at) == (ItemStatus.ACTIVE, FEB)
    subscription.cancel(True, START + 2 * DAY)
    step = next_step(subscription, FEB)
    assert step is not None and step.kind is StepKind.PERIOD_END
    apply_step(subscription, step, None)
    assert subscription.status is SubscriptionStatus.CANCELED and seat.status is ItemStatus.REMOVED


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


def unpaid(subscription: Subscription) -> Invoice:
    """Four failed attempts (days 0, 3, 8, 15): the invoice UNCOLLECTIBLE, the subscription UNPAID."""
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    for day in (0, 3, 8, 15):
        subscription.record_attempt(invoice, f"ch_day{day}", False, START + day * DAY)
    assert invoice.status is InvoiceStatus.UNCOLLECTIBLE and subscription.status is SubscriptionStatus.UNPAID
    subscription.pending_events.clear()
    return invoice


def test_a_new_payment_method_can_still_pay_an_unpaid_subscription_until_it_is_canceled() -> None:
    subscription = started()
    invoice = unpaid(subscription)
    assert subscription.owed() == [invoice]
    # A declined retry with the new method: still UNCOLLECTIBLE, no schedule, the 30 days keep counting.
    subscription.record_attempt(invoice, "ch_new_card", False, START + 20 * DAY)
    assert (invoice.status, invoice.attempt_count, invoice.charge_id) == (
        InvoiceStatus.UNCOLLECTIBLE,
        5,
        "ch_new_card",
    )
    assert invoice.next_attempt_at is None
    assert subscription.status is SubscriptionStatus.UNPAID and subscription.unpaid_at == START + 15 * DAY
    assert [event.type for event in subscription.pending_events] == ["invoice.payment_failed"]
    subscription.pending_events.clear()
    # The next one pays it: ACTIVE again, still in January, billed at its end as usual.
    subscription.record_attempt(invoice, "ch_good_card", True, START + 25 * DAY)
    assert (invoice.status, invoice.attempt_count, invoice.paid_at) == (
        InvoiceStatus.PAID,
        6,
        START + 25 * DAY,
    )
    assert subscription.status is SubscriptionStatus.ACTIVE and subscription.unpaid_at is None
    assert subscription.owed() == []
    assert [event.type for event in subscription.pending_events] == ["subscription.updated", "invoice.paid"]
    assert subscription.current_period_end == FEB
    step = next_step(subscription, FEB)
    assert step is not None and step.kind is StepKind.UPCOMING_NOTICE  # January's, as for any ACTIVE one


def test_an_unpaid_subscription_that_pays_up_late_is_billed_once_for_the_period_in_progress() -> None:
    weekly = started(price(interval="weekly"))  # periods of 7 days from START
    invoice = unpaid(weekly)
    paid_at = START + 40 * DAY  # in the 6th week (days 35–42); weeks 2 to 5 passed UNPAID
    weekly.record_attempt(invoice, "ch_good_card", True, paid_at)
    assert weekly.status is SubscriptionStatus.ACTIVE
    assert (weekly.current_period_start, weekly.current_period_end) == (START + 28 * DAY, START + 35 * DAY)
    # No notice for a skipped week: the next step is that week's end, due at once, invoicing the week
    # in progress — one invoice, not one per missed week.
    step = next_step(weekly, paid_at)
    assert step is not None and (step.kind, step.at) == (StepKind.PERIOD_END, START + 35 * DAY)
    billed = apply_step(weekly, step, None)
    assert billed is not None and (billed.period_start, billed.period_end) == (
        START + 35 * DAY,
        START + 42 * DAY,
    )
    assert weekly.owed() == [billed]  # OPEN, charged by the run right after the step


def test_a_canceled_subscription_owes_nothing_more() -> None:
    subscription = started()
    unpaid(subscription)
    cancel = next_step(subscription, START + 45 * DAY)
    assert cancel is not None
    apply_step(subscription, cancel, None)
    assert subscription.owed() == []
