"""What the billing run does to one subscription, and when (spec: Recurring billing rules; DESIGN §9).

`next_step` names the earliest timed step that fell due by `now`: a trial's end, a period's end (bill
the next period, or cancel at period end), a dunning retry, the cancel 30 days after UNPAID, or a daily
notice. The run applies steps one at a time, each at its own due time, until none is left — so a
sandbox clock advanced by a year replays the year in order, as if the time had passed, and a core that
was down for a day catches up the same way.

Notices go out at 00:00 UTC (the daily task), on the first day within 3 days of the end they announce,
once per period.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from enum import StrEnum

from core_server.billing.domain.events import INVOICE_UPCOMING, TRIAL_WILL_END
from core_server.billing.domain.invoice import Invoice, InvoiceStatus
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import BILLED_STATUSES, SubscriptionStatus
from core_server.billing.domain.tax import TaxRate

UNPAID_GRACE = timedelta(days=30)
"""An UNPAID subscription is canceled (`payment_failed`) 30 days after it became UNPAID."""
NOTICE_AHEAD = timedelta(days=3)
"""A notice goes out on the first day within this long of the end it announces."""
MAX_STEPS = 1_000
"""A bound on one run of one subscription (a year of daily billing with its retries fits)."""
CANCEL_REFUND_GRACE = timedelta(minutes=1)
"""A cancel's refund is the request's to make; the run finishes it only once the request had this long
(a core that crashed mid-cancel), so the two rarely meet — and when they do, the refund's own key makes
it once."""


class StepKind(StrEnum):
    TRIAL_END = "trial_end"
    PERIOD_END = "period_end"
    RETRY = "retry"
    UNPAID_CANCEL = "unpaid_cancel"
    CANCEL_REFUND = "cancel_refund"
    UPCOMING_NOTICE = "upcoming_notice"
    TRIAL_NOTICE = "trial_notice"


INVOICING_STEPS = frozenset({StepKind.TRIAL_END, StepKind.PERIOD_END, StepKind.UPCOMING_NOTICE})
"""Steps that open (or announce) an invoice, and so need the subscription's tax rate."""


@dataclass(frozen=True, slots=True)
class Step:
    kind: StepKind
    at: datetime


def next_midnight(moment: datetime) -> datetime:
    """The first 00:00 UTC at or after `moment`."""
    day = datetime.combine(moment.astimezone(UTC).date(), time(0), tzinfo=UTC)
    return day if day >= moment else day + timedelta(days=1)


def notice_time(start: datetime, end: datetime) -> datetime | None:
    """When the daily task announces an `end`: the first midnight within 3 days of it (and not before
    the period began); None when no midnight falls before the end."""
    at = next_midnight(max(end - NOTICE_AHEAD, start))
    return at if at < end else None


def steps(subscription: Subscription) -> list[Step]:
    """Every timed step the subscription has ahead, due or not: one per kind at most (a dunning retry is
    the earliest OPEN invoice's). Shared by `next_step` (what is due now) and `next_step_at` (when the
    next one falls due), so the billing run's index and its work read the one rule."""
    candidates: list[Step] = []
    status = subscription.status
    if status is SubscriptionStatus.TRIALING and subscription.trial_end is not None:
        candidates.append(Step(StepKind.TRIAL_END, subscription.trial_end))
        assert subscription.trial_start is not None
        at = notice_time(subscription.trial_start, subscription.trial_end)
        if at is not None and (TRIAL_WILL_END, subscription.trial_end) not in subscription.notices:
            candidates.append(Step(StepKind.TRIAL_NOTICE, at))
    if status in BILLED_STATUSES:
        candidates.append(Step(StepKind.PERIOD_END, subscription.current_period_end))
        at = notice_time(subscription.current_period_start, subscription.current_period_end)
        announced = (INVOICE_UPCOMING, subscription.current_period_end)
        if at is not None and not subscription.cancel_at_period_end and announced not in subscription.notices:
            candidates.append(Step(StepKind.UPCOMING_NOTICE, at))
    if status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.PAST_DUE):
        retries = [
            inv.next_attempt_at
            for inv in subscription.invoices
            if inv.status is InvoiceStatus.OPEN and inv.next_attempt_at is not None
        ]
        if retries:
            candidates.append(Step(StepKind.RETRY, min(retries)))
    if status is SubscriptionStatus.UNPAID and subscription.unpaid_at is not None:
        candidates.append(Step(StepKind.UNPAID_CANCEL, subscription.unpaid_at + UNPAID_GRACE))
    if subscription.pending_cancel_refund is not None and subscription.canceled_at is not None:
        candidates.append(Step(StepKind.CANCEL_REFUND, subscription.canceled_at + CANCEL_REFUND_GRACE))
    return candidates


def next_step(subscription: Subscription, now: datetime) -> Step | None:
    """The earliest step due by `now`, or None."""
    due = [step for step in steps(subscription) if step.at <= now]
    return min(due, key=lambda step: step.at) if due else None


def next_step_at(subscription: Subscription) -> datetime | None:
    """When the earliest step falls due (at the merchant's time), whether or not it has: None when the
    subscription has none (canceled, paused). Every save stores it (subscriptions.next_step_at) and the
    billing run's claim reads it by an index range: `next_step(s, now)` is a step exactly when this is
    at or before `now`."""
    times = [step.at for step in steps(subscription)]
    return min(times) if times else None


def apply_step(subscription: Subscription, step: Step, rate: TaxRate | None) -> Invoice | None:
    """Applies `step` at its due time; returns the invoice the run must now charge, if any (a new
    period's, or the one whose retry fell due — its attempt is made at `step.at`)."""
    match step.kind:
        case StepKind.TRIAL_END:
            return subscription.end_trial(rate, step.at)
        case StepKind.PERIOD_END:
            return subscription.end_period(rate, step.at)
        case StepKind.RETRY:
            return subscription.due_retry(step.at)
        case StepKind.UNPAID_CANCEL:
            subscription.cancel_unpaid(step.at)
        case StepKind.CANCEL_REFUND:
            pass  # the refund is payments' write: the service makes it, then records it in a turn
        case StepKind.UPCOMING_NOTICE:
            subscription.send_notice(INVOICE_UPCOMING, subscription.current_period_end, step.at, rate)
        case StepKind.TRIAL_NOTICE:
            assert subscription.trial_end is not None
            subscription.send_notice(TRIAL_WILL_END, subscription.trial_end, step.at)
    return None
