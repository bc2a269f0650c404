"""The invoices a subscription asks to be paid: its period's invoice, the upcoming one a notice shows, the
invoice of the prorations a change settles now, and what a charge attempt's outcome, a void or a free
settlement do to the invoice and to the subscription's status (spec: Recurring billing rules; DESIGN §9,
§10). What an invoice is made of, and the dunning schedule, are in invoice_composition.py.

Functions of the aggregate, which calls them (subscription.py): each takes the subscription it changes,
and the prices and `now` it needs from the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from core_server.billing.domain.events import (
    INVOICE_CREATED,
    INVOICE_PAID,
    INVOICE_PAYMENT_FAILED,
    INVOICE_UPCOMING,
    INVOICE_VOIDED,
    SUBSCRIPTION_UPDATED,
)
from core_server.billing.domain.invoice import (
    BillingReason,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
    merchant_credit,
)
from core_server.billing.domain.invoice_composition import (
    check_invoice_limit,
    item_lines,
    next_retry,
    open_invoice,
    prorations_that_fit,
)
from core_server.billing.domain.periods import period_at, period_bounds
from core_server.billing.domain.subscription_item import PendingProration
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.errors import StateConflict

if TYPE_CHECKING:
    from core_server.billing.domain.subscription import Subscription


def open_period_invoice(
    subscription: Subscription, reason: BillingReason, rate: TaxRate | None, now: datetime
) -> Invoice:
    """The invoice of the current period: every item it bills, and every proration still pending."""
    start, end = subscription.current_period_start, subscription.current_period_end
    lines = item_lines(subscription.items, start, end)
    waiting = _waiting_prorations(subscription, len(lines))
    invoice = open_new_invoice(subscription, reason, lines + [p.line for p in waiting], rate, now)
    for pending in waiting:
        pending.invoice_id = invoice.id
    for item in subscription.items:
        if item.billed_in(start):
            item.bill_period()
        else:
            item.billed = ()
    return invoice


def upcoming_invoice(subscription: Subscription, rate: TaxRate | None, now: datetime) -> Invoice:
    """What the next period's invoice will be if nothing changes before it: a DRAFT that is never
    saved (`invoice.upcoming` shows it), with the items still billed then and the pending prorations."""
    start, end = _next_period(subscription)
    lines = item_lines(subscription.items, start, end)
    waiting = _waiting_prorations(subscription, len(lines))
    return Invoice.draft(
        "",
        subscription.merchant_id,
        subscription.environment,
        subscription.id,
        subscription.customer_id,
        subscription.currency,
        lines + [p.line for p in waiting],
        rate,
        BillingReason.SUBSCRIPTION_CYCLE,
        start,
        end,
        now,
    )


def record_attempt(
    subscription: Subscription,
    invoice: Invoice,
    charge_id: str | None,
    paid: bool,
    now: datetime,
    failure_code: str | None = None,
) -> None:
    """The outcome of the invoice's charge attempt: PAID (its prorations BILLED, the subscription
    ACTIVE again once nothing else is OPEN) or, on a decline, the dunning schedule counted from the
    invoice's own first failure — the next retry, or after the last one the invoice UNCOLLECTIBLE
    and the subscription UNPAID."""
    if paid and charge_id is not None:
        invoice.record_payment(charge_id, now)
        _invoice_paid(subscription, invoice, now)
        subscription.keep_invoice(invoice)
        return
    invoice.failure_code = failure_code
    if invoice.status is InvoiceStatus.UNCOLLECTIBLE:
        # The retry a new payment method made after the schedule ran out: no new schedule, and
        # the 30 days of UNPAID keep counting from when it became UNPAID.
        invoice.record_late_failure(charge_id)
        subscription.emit(INVOICE_PAYMENT_FAILED, invoice.id, now)
        subscription.keep_invoice(invoice)
        return
    if invoice.first_failed_at is None:
        invoice.first_failed_at = now
    retry_at = next_retry(invoice.first_failed_at, now)
    invoice.record_failure(charge_id, now, retry_at)
    subscription.emit(INVOICE_PAYMENT_FAILED, invoice.id, now)
    if retry_at is None:
        invoice.mark_uncollectible()
        if subscription.status is not SubscriptionStatus.CANCELED:
            subscription.status = SubscriptionStatus.UNPAID
            subscription.unpaid_at = now
            subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    elif subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING):
        subscription.status = SubscriptionStatus.PAST_DUE
        subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    subscription.keep_invoice(invoice)


def void_invoice(subscription: Subscription, invoice_id: str, now: datetime) -> Invoice:
    """`POST /invoices/{id}/void` (DRAFT or OPEN): the invoice is forgiven, its lines with it. A
    PAST_DUE subscription with nothing else owed is ACTIVE again."""
    invoice = next((inv for inv in subscription.invoices if inv.id == invoice_id), None)
    if invoice is None:
        raise StateConflict("Only a DRAFT or OPEN invoice can be voided.", param="id")
    invoice.void()
    subscription.emit(INVOICE_VOIDED, invoice.id, now)
    owed = [inv for inv in subscription.invoices if inv.status is InvoiceStatus.OPEN]
    if subscription.status is SubscriptionStatus.PAST_DUE and not owed:
        subscription.status = SubscriptionStatus.ACTIVE
        subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    subscription.keep_invoice(invoice)
    return invoice


def due_retry(subscription: Subscription, now: datetime) -> Invoice | None:
    """The OPEN invoice whose next dunning retry is due by `now`, if any."""
    due = [
        inv
        for inv in subscription.invoices
        if inv.status is InvoiceStatus.OPEN and inv.next_attempt_at is not None and inv.next_attempt_at <= now
    ]
    return min(due, key=lambda inv: inv.next_attempt_at or now) if due else None


def settle_free_invoice(subscription: Subscription, invoice: Invoice, now: datetime) -> None:
    """Nothing to charge (the balance covered it, a total not above zero, or a due carried): PAID."""
    invoice.settle_without_charge(now)
    _invoice_paid(subscription, invoice, now)
    subscription.keep_invoice(invoice)


def invoice_prorations(
    subscription: Subscription,
    fresh: Sequence[PendingProration],
    reason: BillingReason,
    rate: TaxRate | None,
    now: datetime,
) -> Invoice | None:
    """An invoice of the prorations a change just made, settled now: charged, or credited to the
    customer's balance when its total is not above zero, or carried when it is below a charge
    (DESIGN §10.1) — so nothing waits and nothing is lost."""
    if not fresh:
        return None
    invoice = open_new_invoice(subscription, reason, [p.line for p in fresh], rate, now)
    for pending in fresh:
        pending.invoice_id = invoice.id
    return invoice


def open_new_invoice(
    subscription: Subscription,
    reason: BillingReason,
    lines: Sequence[InvoiceLine],
    rate: TaxRate | None,
    now: datetime,
) -> Invoice:
    """An OPEN invoice of `lines` for the current period, the subscription's latest."""
    invoice = open_invoice(
        subscription.merchant_id,
        subscription.environment,
        subscription.id,
        subscription.customer_id,
        subscription.currency,
        lines,
        rate,
        reason,
        subscription.current_period_start,
        subscription.current_period_end,
        now,
    )
    subscription.latest_invoice = invoice.id
    subscription.keep_invoice(invoice)
    subscription.emit(INVOICE_CREATED, invoice.id, now)
    return invoice


def check_next_invoice(subscription: Subscription, rate: TaxRate | None, param: str) -> None:
    """400 `amount_too_large` on `param` when the next regular invoice — its item lines at today's
    prices and quantities (DESIGN §10.3) — could not be charged."""
    start, end = _next_period(subscription)
    check_invoice_limit(item_lines(subscription.items, start, end), rate, param)


def _next_period(subscription: Subscription) -> tuple[datetime, datetime]:
    return period_bounds(
        subscription.billing_anchor,
        subscription.interval,
        subscription.interval_count,
        subscription.period_index + 1,
    )


def _invoice_paid(subscription: Subscription, invoice: Invoice, now: datetime) -> None:
    # The merchant earns only what a payment method was charged (DESIGN §10.2); no charge, no fee.
    if invoice.charge_id is not None:
        fee_net = merchant_credit(invoice.charged_cents, invoice.tax_share_cents)
        invoice.merchant_fee_cents, invoice.merchant_net_cents = fee_net
    for pending in subscription.prorations:
        if pending.invoice_id == invoice.id:
            pending.billed = True
    still_open = any(inv.status is InvoiceStatus.OPEN for inv in subscription.invoices if inv is not invoice)
    if subscription.status is SubscriptionStatus.PAST_DUE and not still_open:
        subscription.status = SubscriptionStatus.ACTIVE
        subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    elif subscription.status is SubscriptionStatus.UNPAID and not subscription.owed():
        subscription.status = SubscriptionStatus.ACTIVE
        subscription.unpaid_at = None
        _skip_unpaid_periods(subscription, now)
        subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    subscription.emit(INVOICE_PAID, invoice.id, now)


def _skip_unpaid_periods(subscription: Subscription, now: datetime) -> None:
    """An UNPAID subscription is not billed (DESIGN §9: no more invoices), so the periods that ended
    while it was are not billed when it pays up either: it moves to the period before the one in
    progress, whose end falls due at once and invoices the period in progress — one invoice, not
    one per missed period, and never an `invoice.upcoming` for a skipped one."""
    anchor, interval, count = subscription.billing_anchor, subscription.interval, subscription.interval_count
    index, _, _ = period_at(anchor, interval, count, now)
    if index - 1 <= subscription.period_index:
        return
    subscription.period_index = index - 1
    subscription.current_period_start, subscription.current_period_end = period_bounds(
        anchor, interval, count, subscription.period_index
    )
    subscription.notices.add((INVOICE_UPCOMING, subscription.current_period_end))


def _waiting_prorations(subscription: Subscription, taken_lines: int) -> list[PendingProration]:
    """The prorations no invoice took yet that fit on the next one beside `taken_lines` item lines
    (MAX_INVOICE_LINES; the oldest first, the rest wait for the invoice after) — a credit larger than
    it makes a negative total, credited to the customer's balance — charges first, then credits."""
    untaken = [p for p in subscription.prorations if p.invoice_id is None]
    waiting = prorations_that_fit(untaken, taken_lines)
    return sorted(waiting, key=lambda p: p.line.amount_cents < 0)
