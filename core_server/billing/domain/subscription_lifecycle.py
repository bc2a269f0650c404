"""A subscription's life between its start and its end: cancel (now or at period end, with the refund an
immediate `prorate` cancel owes), pause and resume, and what the billing run applies at a due time — a
trial's end, a period's end, the cancel of an UNPAID subscription, a notice (spec: Subscription
transitions; DESIGN §9, §10.2, §10.4). billing_steps.py decides when each falls due.

Functions of the aggregate, which calls them (subscription.py): each takes the subscription it changes,
checks its status against the table in subscription_status.py, and the prices and `now` it needs from the
caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from core_server.billing.domain import billed_time
from core_server.billing.domain.events import (
    INVOICE_UPCOMING,
    SUBSCRIPTION_CANCELED,
    SUBSCRIPTION_UPDATED,
)
from core_server.billing.domain.invoice import BillingReason, Invoice, InvoiceStatus
from core_server.billing.domain.periods import period_bounds
from core_server.billing.domain.subscription_invoicing import open_period_invoice, upcoming_invoice
from core_server.billing.domain.subscription_item import ItemStatus
from core_server.billing.domain.subscription_status import (
    BILLED_STATUSES,
    CHANGEABLE,
    OPEN_STATUSES,
    PAUSABLE,
    SubscriptionStatus,
    require_status,
)
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.state_copies import Immutable

if TYPE_CHECKING:
    from core_server.billing.domain.subscription import Subscription


@dataclass(frozen=True, slots=True)
class PendingCancelRefund(Immutable):
    """DESIGN §10.2: the refund an immediate cancel with `prorate` owes on the last paid invoice's charge,
    saved with the cancel and cleared when the refund is made (by the request, its retry or the billing
    run), so it is made once whatever fails between."""

    charge_id: str
    amount_cents: int


def cancel(
    subscription: Subscription,
    at_period_end: bool,
    now: datetime,
    *,
    refund_of: Invoice | None = None,
    key: str | None = None,
) -> None:
    """At period end: flagged, ACTIVE until then. Now: CANCELED, its OPEN invoices UNCOLLECTIBLE
    (DESIGN §10.4) and, with `refund_of` (the last paid period invoice, for `prorate`), the unused
    part of that invoice owed back on its charge (DESIGN §10.2) — made after this turn is saved."""
    require_status(subscription.status, OPEN_STATUSES, "cancel")
    if at_period_end:
        require_status(subscription.status, CHANGEABLE, "cancel at period end")
        if not subscription.cancel_at_period_end:
            subscription.cancel_at_period_end = True
            subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
        return
    if (
        refund_of is not None
        and refund_of.charge_id is not None
        and refund_of.period_start == subscription.current_period_start
    ):
        amount = subscription.period.prorate(refund_of.total_cents, 1, now).amount_cents
        if amount > 0:
            subscription.pending_cancel_refund = PendingCancelRefund(refund_of.charge_id, amount)
    subscription.cancel_refund_key = key
    _close(subscription, now.replace(microsecond=0), "canceled_by_merchant")


def finish_cancel_refund(subscription: Subscription, refund_id: str | None, now: datetime) -> None:
    """The cancel's refund was made (`refund_id`), or nothing could be refunded (None)."""
    if subscription.pending_cancel_refund is None:
        return
    subscription.pending_cancel_refund = None
    subscription.cancel_refund = refund_id
    subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)


def pause(subscription: Subscription, now: datetime) -> None:
    """Not billed while paused; the period freezes and resuming starts a new one."""
    require_status(subscription.status, PAUSABLE, "pause")
    subscription.status = SubscriptionStatus.PAUSED
    subscription.paused_at = now.replace(microsecond=0)
    subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)


def resume(subscription: Subscription, rate: TaxRate | None, now: datetime) -> Invoice | None:
    """ACTIVE again with a new period anchored at `now`, invoiced at once — unless the paused period
    began this very second: that period was invoiced already, and it simply goes on. Resumed before
    the paused period's end, the new period overlaps time that period billed: each item's unused
    billed rest comes back as a credit on the resume's invoice (DESIGN §10.4: a charge only bills
    time no other line bills)."""
    require_status(subscription.status, frozenset({SubscriptionStatus.PAUSED}), "resume")
    now = now.replace(microsecond=0)
    subscription.status = SubscriptionStatus.ACTIVE
    subscription.paused_at = None
    subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    if now == subscription.current_period_start:
        return None
    if now < subscription.current_period_end:
        for item in subscription.items:
            if item.status is ItemStatus.ACTIVE:
                for line in billed_time.unused_rest(item, subscription.period, now):
                    subscription.defer_proration(item.id, line, now)
    _start_periods(subscription, now)
    return open_period_invoice(subscription, BillingReason.SUBSCRIPTION_RESUME, rate, now)


def end_trial(subscription: Subscription, rate: TaxRate | None, at: datetime) -> Invoice | None:
    """TRIALING → ACTIVE at `trial_end`, the first paid period anchored there and billed at once
    (or CANCELED then, without an invoice, when it was set to cancel at period end)."""
    require_status(subscription.status, frozenset({SubscriptionStatus.TRIALING}), "end the trial of")
    if subscription.cancel_at_period_end:
        _close(subscription, at, "cancel_at_period_end")
        return None
    subscription.status = SubscriptionStatus.ACTIVE
    _start_periods(subscription, at)
    subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, at)
    return open_period_invoice(subscription, BillingReason.SUBSCRIPTION_CYCLE, rate, at)


def end_period(subscription: Subscription, rate: TaxRate | None, at: datetime) -> Invoice | None:
    """At `current_period_end` of an ACTIVE or PAST_DUE subscription: the next period starts (new
    start = old end) and is invoiced, items removed at period end drop out — or, set to cancel at
    period end, CANCELED without a new invoice. PAST_DUE periods are invoiced on time too (DESIGN
    §10.4), each invoice with its own dunning schedule."""
    require_status(subscription.status, BILLED_STATUSES, "bill")
    if subscription.cancel_at_period_end:
        _close(subscription, at, "cancel_at_period_end")
        return None
    subscription.period_index += 1
    subscription.current_period_start, subscription.current_period_end = period_bounds(
        subscription.billing_anchor,
        subscription.interval,
        subscription.interval_count,
        subscription.period_index,
    )
    _drop_items_removed_by(subscription, subscription.current_period_start)
    return open_period_invoice(subscription, BillingReason.SUBSCRIPTION_CYCLE, rate, at)


def cancel_unpaid(subscription: Subscription, at: datetime) -> None:
    """30 days UNPAID: CANCELED with `payment_failed` (spec: Subscription transitions)."""
    require_status(subscription.status, frozenset({SubscriptionStatus.UNPAID}), "cancel for non-payment")
    _close(subscription, at, "payment_failed")


def send_notice(
    subscription: Subscription,
    event_type: str,
    announced: datetime,
    at: datetime,
    rate: TaxRate | None = None,
) -> None:
    """`invoice.upcoming` (with the upcoming invoice) or `subscription.trial_will_end`, once for the
    period (or trial) ending at `announced`."""
    if (event_type, announced) in subscription.notices:
        return
    subscription.notices.add((event_type, announced))
    if event_type == INVOICE_UPCOMING:
        subscription.upcoming = upcoming_invoice(subscription, rate, at)
    subscription.emit(event_type, subscription.id, at)


def _start_periods(subscription: Subscription, anchor: datetime) -> None:
    """The first period of a new run of periods anchored at `anchor` (a trial's end, a resume)."""
    subscription.billing_anchor = anchor
    subscription.period_index = 0
    subscription.current_period_start, subscription.current_period_end = period_bounds(
        anchor, subscription.interval, subscription.interval_count, 0
    )


def _drop_items_removed_by(subscription: Subscription, moment: datetime) -> None:
    """Items removed at a period end that `moment` has reached are `removed` from then on (DESIGN §9:
    `active` with `removedAt` until then)."""
    for item in subscription.items:
        removed_at = item.removed_at
        if item.status is ItemStatus.ACTIVE and removed_at is not None and removed_at <= moment:
            item.status = ItemStatus.REMOVED


def _close(subscription: Subscription, at: datetime, reason: str) -> None:
    """CANCELED; whatever is still OPEN will never be attempted again (DESIGN §10.4)."""
    _drop_items_removed_by(subscription, at)
    for invoice in subscription.invoices:
        if invoice.status is InvoiceStatus.OPEN:
            invoice.mark_uncollectible()
    subscription.status = SubscriptionStatus.CANCELED
    subscription.canceled_at = at
    subscription.cancel_reason = reason
    subscription.cancel_at_period_end = False
    subscription.emit(SUBSCRIPTION_CANCELED, subscription.id, at)
