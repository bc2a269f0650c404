"""The Subscription aggregate: its status table, its items, the prorations their moves create, and the
invoices it asks to be paid (spec: Subscription transitions and item moves; DESIGN §9). What those
invoices are made of, and the dunning schedule, are in invoice_composition.py; the event types in
events.py.

Longer than 500 lines because what remains is one state machine over the same fields: its transitions,
each guarded by the status table, and the few reads they share; splitting it would scatter its rules.

Methods are named after the spec's triggers and take `now` (the merchant's time) and the prices they
need from the caller; they never read a clock or storage. Each change appends its domain events to
`pending_events`; the application renders and writes them in the turn that saves the new state.

Money moves in two steps, because a charge is another context's write: a method that bills now puts an
OPEN invoice on the subscription (saved first), the application has payments attempt its charge, and
`record_attempt` applies the outcome. A crash between the two leaves an OPEN invoice with no attempt
recorded, which the next attempt finds (one charge per invoice and attempt number, by a unique index).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from core_server.billing.domain import billed_time
from core_server.billing.domain.catalog import Price, check_compatible, check_startable
from core_server.billing.domain.events import (
    INVOICE_CREATED,
    INVOICE_PAID,
    INVOICE_PAYMENT_FAILED,
    INVOICE_UPCOMING,
    INVOICE_VOIDED,
    ITEM_CREATED,
    ITEM_DELETED,
    ITEM_UPDATED,
    SUBSCRIPTION_CANCELED,
    SUBSCRIPTION_CREATED,
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
from core_server.billing.domain.subscription_changes import Preview, PriceProration
from core_server.billing.domain.subscription_item import (
    MAX_ACTIVE_ITEMS,
    ItemProration,
    ItemStatus,
    PendingProration,
    SubscriptionItem,
    check_quantity,
    item_not_found,
)
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid, StateConflict
from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.ids import new_id
from core_server.kernel.domain.state_copies import FieldCopy, Immutable

SUBSCRIPTION_ID_RE = re.compile(r"^sub_[A-Za-z0-9]{24}$")
COLLECTION_METHOD = "charge_automatically"

UNPAID_GRACE = timedelta(days=30)
"""An UNPAID subscription is canceled (`payment_failed`) 30 days after it became UNPAID."""
NOTICE_AHEAD = timedelta(days=3)


class SubscriptionStatus(StrEnum):
    TRIALING = "TRIALING"
    ACTIVE = "ACTIVE"
    PAST_DUE = "PAST_DUE"
    UNPAID = "UNPAID"
    PAUSED = "PAUSED"
    CANCELED = "CANCELED"


def still_owed(invoice: InvoiceStatus, subscription: SubscriptionStatus) -> bool:
    """An OPEN invoice, or the UNCOLLECTIBLE one of an UNPAID subscription: its customer can still pay
    it with a new payment method until the subscription is canceled (DESIGN §9). The actor keeps these
    in memory and the repository loads them (subscription_repository.py's _OWED_INVOICES)."""
    return invoice is InvoiceStatus.OPEN or (
        invoice is InvoiceStatus.UNCOLLECTIBLE and subscription is SubscriptionStatus.UNPAID
    )


# Which triggers each status accepts: everything else is 400 invalid_state and changes nothing.
CHANGEABLE = frozenset({SubscriptionStatus.TRIALING, SubscriptionStatus.ACTIVE})
"""Price changes and item moves: not while money is owed, paused or over."""
PAUSABLE = frozenset({SubscriptionStatus.ACTIVE})
OPEN_STATUSES = frozenset(set(SubscriptionStatus) - {SubscriptionStatus.CANCELED})
BILLED_STATUSES = frozenset({SubscriptionStatus.ACTIVE, SubscriptionStatus.PAST_DUE})
"""DESIGN §10.4: a PAST_DUE subscription's periods are still invoiced at their ends (and announced)."""


@dataclass(frozen=True, slots=True)
class PendingCancelRefund(Immutable):
    """DESIGN §10.2: the refund an immediate cancel with `prorate` owes on the last paid invoice's charge,
    saved with the cancel and cleared when the refund is made (by the request, its retry or the billing
    run), so it is made once whatever fails between."""

    charge_id: str
    amount_cents: int


@dataclass(slots=True)
class Subscription(FieldCopy):
    id: str
    merchant_id: str
    environment: Environment
    customer_id: str
    price_id: str
    currency: str
    interval: str
    interval_count: int
    status: SubscriptionStatus
    collection_method: str
    tax_rate_id: str | None
    trial_start: datetime | None
    trial_end: datetime | None
    billing_anchor: datetime
    period_index: int
    current_period_start: datetime
    current_period_end: datetime
    cancel_at_period_end: bool
    canceled_at: datetime | None
    cancel_reason: str | None
    paused_at: datetime | None
    latest_invoice: str | None
    metadata: dict[str, str]
    created: datetime
    idempotency_key: str | None = None
    unpaid_at: datetime | None = None
    notices: set[tuple[str, datetime]] = field(default_factory=set)
    """(event type, the period or trial end it announced): each notice goes out once per period."""
    items: list[SubscriptionItem] = field(default_factory=list)
    prorations: list[PendingProration] = field(default_factory=list)
    invoices: list[Invoice] = field(default_factory=list)
    """Invoices this turn created or changed (storage upserts them); not the whole history."""
    upcoming: Invoice | None = None
    """The next period's invoice as `invoice.upcoming` announced it this turn (never saved)."""
    cancel_refund: str | None = None
    """The refund id an immediate cancel with `prorate` made (DESIGN §10.2), or None."""
    cancel_refund_key: str | None = None
    """The Idempotency-Key of that cancel: its retry finishes and answers it instead of a 400."""
    pending_cancel_refund: PendingCancelRefund | None = None
    pending_events: list[DomainEvent] = field(default_factory=list)

    @property
    def livemode(self) -> bool:
        return self.environment.livemode

    # -- creation -----------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        subscription_id: str,
        merchant_id: str,
        environment: Environment,
        customer_id: str,
        price: Price,
        *,
        tax_rate_id: str | None,
        metadata: dict[str, str],
        now: datetime,
        idempotency_key: str | None = None,
    ) -> Subscription:
        """A trial when the price has one (nothing billed); otherwise ACTIVE from `now`, whose first
        period the caller invoices at once (`open_period_invoice`)."""
        check_startable(price)
        now = now.replace(microsecond=0)
        terms = price.terms
        trial_days = terms.trial_period_days or 0
        trial_start: datetime | None = None
        trial_end: datetime | None = None
        if trial_days > 0:
            trial_start, trial_end = now, now + timedelta(days=trial_days)
            status, start, end = SubscriptionStatus.TRIALING, now, trial_end
        else:
            status = SubscriptionStatus.ACTIVE
            start, end = period_bounds(now, terms.interval, terms.interval_count, 0)
        subscription = cls(
            id=subscription_id,
            merchant_id=merchant_id,
            environment=environment,
            customer_id=customer_id,
            price_id=price.id,
            currency=terms.currency,
            interval=terms.interval,
            interval_count=terms.interval_count,
            status=status,
            collection_method=COLLECTION_METHOD,
            tax_rate_id=tax_rate_id,
            trial_start=trial_start,
            trial_end=trial_end,
            billing_anchor=start,
            period_index=0,
            current_period_start=start,
            current_period_end=end,
            cancel_at_period_end=False,
            canceled_at=None,
            cancel_reason=None,
            paused_at=None,
            latest_invoice=None,
            metadata=metadata,
            created=now,
            idempotency_key=idempotency_key,
        )
        base = SubscriptionItem.new(
            subscription.id, environment, price, 1, ItemProration.NONE, {}, now, base=True
        )
        subscription.items.append(base)
        subscription._event(SUBSCRIPTION_CREATED, subscription.id, now)
        return subscription

    # -- reading ------------------------------------------------------------------------------------

    @property
    def base_item(self) -> SubscriptionItem:
        return next(item for item in self.items if item.is_base_item)

    def item(self, item_id: str) -> SubscriptionItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    def owed(self) -> list[Invoice]:
        """The invoices the customer still owes, those a new payment method retries (DESIGN §9)."""
        return [inv for inv in self.invoices if still_owed(inv.status, self.status)]

    def open_invoice(self) -> Invoice | None:
        """The invoice waiting for a charge attempt this turn created, if any."""
        return next((inv for inv in self.invoices if inv.status is InvoiceStatus.OPEN), None)

    # -- price, metadata, tax -----------------------------------------------------------------------

    def change_price(
        self, new_price: Price, behavior: PriceProration, rate: TaxRate | None, now: datetime
    ) -> Sequence[InvoiceLine]:
        """The base item takes the new price; prorations per `behavior` (none during a trial).

        Returns the proration lines created (for the preview and for `always_invoice`)."""
        self._require(CHANGEABLE, "change the price of")
        check_startable(new_price)
        check_compatible(new_price, self.currency, self.interval, self.interval_count, "price_id")
        base = self.base_item
        if new_price.id == base.price_id:
            return []
        lines: list[InvoiceLine] = []
        prorated = self._prorates(behavior is not PriceProration.NONE)
        if prorated:
            lines = billed_time.price_change(
                base, new_price.id, new_price.terms.amount_cents, self._period, now
            )
        else:
            base.price_id, base.unit_amount_cents = new_price.id, new_price.terms.amount_cents
        self.price_id = new_price.id
        check_invoice_limit(self._next_regular_lines(), rate, "price_id")
        if prorated:
            made = [self._defer(base.id, line, now) for line in lines]
            base.proration_amount_cents = sum(line.amount_cents for line in lines)
            if behavior is PriceProration.ALWAYS_INVOICE:
                self._invoice_prorations(made, BillingReason.SUBSCRIPTION_UPDATE, rate, now)
        self._event(SUBSCRIPTION_UPDATED, self.id, now)
        return lines

    def update_details(self, metadata: dict[str, str] | None, tax_rate_id: str | None, now: datetime) -> bool:
        """Metadata (merged; an empty value deletes its key) and the tax rate ("" clears it)."""
        self._require(OPEN_STATUSES, "update")
        before = (dict(self.metadata), self.tax_rate_id)
        if metadata:
            merged = {**self.metadata, **metadata}
            self.metadata = {key: value for key, value in merged.items() if value != ""}
        if tax_rate_id is not None:
            self.tax_rate_id = tax_rate_id or None
        changed = before != (self.metadata, self.tax_rate_id)
        if changed:
            self._event(SUBSCRIPTION_UPDATED, self.id, now)
        return changed

    # -- items --------------------------------------------------------------------------------------

    def add_item(
        self,
        price: Price,
        quantity: int,
        behavior: ItemProration,
        metadata: dict[str, str],
        rate: TaxRate | None,
        now: datetime,
    ) -> SubscriptionItem:
        self._require(CHANGEABLE, "add an item to")
        check_startable(price, "priceId")
        check_compatible(price, self.currency, self.interval, self.interval_count, "priceId")
        check_quantity(quantity)
        if sum(1 for known in self.items if known.status is ItemStatus.ACTIVE) >= MAX_ACTIVE_ITEMS:
            raise ParameterInvalid(
                f"A subscription has at most {MAX_ACTIVE_ITEMS} active items.", param="priceId"
            )
        item = SubscriptionItem.new(
            self.id, self.environment, price, quantity, behavior, metadata, now, base=False
        )
        self.items.append(item)
        check_invoice_limit(self._next_regular_lines(), rate, "priceId")
        self._settle_item_move(item, 0, behavior, rate, now, f"{quantity} × {price.id}")
        self._event(ITEM_CREATED, item.id, now)
        return item

    def update_item(
        self, item_id: str, quantity: int, behavior: ItemProration | None, rate: TaxRate | None, now: datetime
    ) -> SubscriptionItem:
        self._require(CHANGEABLE, "change an item of")
        item = self._live_item(item_id)
        check_quantity(quantity)
        delta = quantity - item.quantity
        if delta == 0:
            return item
        chosen = behavior or item.proration_behavior
        before = item.quantity
        item.quantity = quantity
        item.proration_behavior = chosen
        item.proration_amount_cents = 0
        if delta > 0:
            check_invoice_limit(self._next_regular_lines(), rate, "quantity")
        self._settle_item_move(item, before, chosen, rate, now, f"Quantity {before} → {quantity}")
        self._event(ITEM_UPDATED, item.id, now)
        return item

    def remove_item(self, item_id: str, immediate: bool, now: datetime) -> SubscriptionItem:
        """Now: removed, with a credit for the unused billed part of the period whatever behaviour the
        item was added with (DESIGN §10.4: nothing for time never billed), pending for the next invoice.
        At period end: stays active until then, no proration."""
        self._require(CHANGEABLE, "remove an item of")
        item = self._live_item(item_id)
        if item.is_base_item:
            raise StateConflict("The base item of a subscription cannot be removed.", param="itemId")
        if immediate:
            item.status = ItemStatus.REMOVED
            item.removed_at = now.replace(microsecond=0)
            item.proration_amount_cents = 0
            if self._prorates(True):
                for line in billed_time.unused_rest(item, self._period, now):
                    self._defer(item.id, line, now)
                    item.proration_amount_cents += line.amount_cents
            item.billed = ()
        else:
            item.removed_at = self.current_period_end
        self._event(ITEM_DELETED, item.id, now)
        return item

    # -- cancel, pause, resume ----------------------------------------------------------------------

    def cancel(
        self,
        at_period_end: bool,
        now: datetime,
        *,
        refund_of: Invoice | None = None,
        key: str | None = None,
    ) -> None:
        """At period end: flagged, ACTIVE until then. Now: CANCELED, its OPEN invoices UNCOLLECTIBLE
        (DESIGN §10.4) and, with `refund_of` (the last paid period invoice, for `prorate`), the unused
        part of that invoice owed back on its charge (DESIGN §10.2) — made after this turn is saved."""
        self._require(OPEN_STATUSES, "cancel")
        if at_period_end:
            self._require(CHANGEABLE, "cancel at period end")
            if not self.cancel_at_period_end:
                self.cancel_at_period_end = True
                self._event(SUBSCRIPTION_UPDATED, self.id, now)
            return
        if (
            refund_of is not None
            and refund_of.charge_id is not None
            and refund_of.period_start == self.current_period_start
        ):
            amount = self._period.prorate(refund_of.total_cents, 1, now).amount_cents
            if amount > 0:
                self.pending_cancel_refund = PendingCancelRefund(refund_of.charge_id, amount)
        self.cancel_refund_key = key
        self._close(now.replace(microsecond=0), "canceled_by_merchant")

    def finish_cancel_refund(self, refund_id: str | None, now: datetime) -> None:
        """The cancel's refund was made (`refund_id`), or nothing could be refunded (None)."""
        if self.pending_cancel_refund is None:
            return
        self.pending_cancel_refund = None
        self.cancel_refund = refund_id
        self._event(SUBSCRIPTION_UPDATED, self.id, now)

    def pause(self, now: datetime) -> None:
        """Not billed while paused; the period freezes and resuming starts a new one."""
        self._require(PAUSABLE, "pause")
        self.status = SubscriptionStatus.PAUSED
        self.paused_at = now.replace(microsecond=0)
        self._event(SUBSCRIPTION_UPDATED, self.id, now)

    def resume(self, rate: TaxRate | None, now: datetime) -> Invoice | None:
        """ACTIVE again with a new period anchored at `now`, invoiced at once — unless the paused period
        began this very second: that period was invoiced already, and it simply goes on. Resumed before
        the paused period's end, the new period overlaps time that period billed: each item's unused
        billed rest comes back as a credit on the resume's invoice (DESIGN §10.4: a charge only bills
        time no other line bills)."""
        self._require(frozenset({SubscriptionStatus.PAUSED}), "resume")
        now = now.replace(microsecond=0)
        self.status = SubscriptionStatus.ACTIVE
        self.paused_at = None
        self._event(SUBSCRIPTION_UPDATED, self.id, now)
        if now == self.current_period_start:
            return None
        if now < self.current_period_end:
            for item in self.items:
                if item.status is ItemStatus.ACTIVE:
                    for line in billed_time.unused_rest(item, self._period, now):
                        self._defer(item.id, line, now)
        self.billing_anchor = now
        self.period_index = 0
        self.current_period_start, self.current_period_end = period_bounds(
            now, self.interval, self.interval_count, 0
        )
        return self.open_period_invoice(BillingReason.SUBSCRIPTION_RESUME, rate, now)

    # -- what the billing run applies (billing_steps.py decides when) --------------------------------

    def end_trial(self, rate: TaxRate | None, at: datetime) -> Invoice | None:
        """TRIALING → ACTIVE at `trial_end`, the first paid period anchored there and billed at once
        (or CANCELED then, without an invoice, when it was set to cancel at period end)."""
        self._require(frozenset({SubscriptionStatus.TRIALING}), "end the trial of")
        if self.cancel_at_period_end:
            self._close(at, "cancel_at_period_end")
            return None
        self.status = SubscriptionStatus.ACTIVE
        self.billing_anchor = at
        self.period_index = 0
        self.current_period_start, self.current_period_end = period_bounds(
            at, self.interval, self.interval_count, 0
        )
        self._event(SUBSCRIPTION_UPDATED, self.id, at)
        return self.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, rate, at)

    def end_period(self, rate: TaxRate | None, at: datetime) -> Invoice | None:
        """At `current_period_end` of an ACTIVE or PAST_DUE subscription: the next period starts (new
        start = old end) and is invoiced, items removed at period end drop out — or, set to cancel at
        period end, CANCELED without a new invoice. PAST_DUE periods are invoiced on time too (DESIGN
        §10.4), each invoice with its own dunning schedule."""
        self._require(BILLED_STATUSES, "bill")
        if self.cancel_at_period_end:
            self._close(at, "cancel_at_period_end")
            return None
        self.period_index += 1
        self.current_period_start, self.current_period_end = period_bounds(
            self.billing_anchor, self.interval, self.interval_count, self.period_index
        )
        self._drop_items_removed_by(self.current_period_start)
        return self.open_period_invoice(BillingReason.SUBSCRIPTION_CYCLE, rate, at)

    def cancel_unpaid(self, at: datetime) -> None:
        """30 days UNPAID: CANCELED with `payment_failed` (spec: Subscription transitions)."""
        self._require(frozenset({SubscriptionStatus.UNPAID}), "cancel for non-payment")
        self._close(at, "payment_failed")

    def send_notice(
        self, event_type: str, announced: datetime, at: datetime, rate: TaxRate | None = None
    ) -> None:
        """`invoice.upcoming` (with the upcoming invoice) or `subscription.trial_will_end`, once for the
        period (or trial) ending at `announced`."""
        if (event_type, announced) in self.notices:
            return
        self.notices.add((event_type, announced))
        if event_type == INVOICE_UPCOMING:
            self.upcoming = self.upcoming_invoice(rate, at)
        self._event(event_type, self.id, at)

    def _drop_items_removed_by(self, moment: datetime) -> None:
        """Items removed at a period end that `moment` has reached are `removed` from then on (DESIGN §9:
        `active` with `removedAt` until then)."""
        for item in self.items:
            removed_at = item.removed_at
            if item.status is ItemStatus.ACTIVE and removed_at is not None and removed_at <= moment:
                item.status = ItemStatus.REMOVED

    def _close(self, at: datetime, reason: str) -> None:
        """CANCELED; whatever is still OPEN will never be attempted again (DESIGN §10.4)."""
        self._drop_items_removed_by(at)
        for invoice in self.invoices:
            if invoice.status is InvoiceStatus.OPEN:
                invoice.mark_uncollectible()
        self.status = SubscriptionStatus.CANCELED
        self.canceled_at = at
        self.cancel_reason = reason
        self.cancel_at_period_end = False
        self._event(SUBSCRIPTION_CANCELED, self.id, at)

    # -- invoices -----------------------------------------------------------------------------------

    def open_period_invoice(self, reason: BillingReason, rate: TaxRate | None, now: datetime) -> Invoice:
        """The invoice of the current period: every item it bills, and every proration still pending."""
        lines = item_lines(self.items, self.current_period_start, self.current_period_end)
        waiting = self._waiting_prorations(len(lines))
        invoice = self._open_invoice(reason, lines + [p.line for p in waiting], rate, now)
        for pending in waiting:
            pending.invoice_id = invoice.id
        for item in self.items:
            if item.billed_in(self.current_period_start):
                item.bill_period()
            else:
                item.billed = ()
        return invoice

    def upcoming_invoice(self, rate: TaxRate | None, now: datetime) -> Invoice:
        """What the next period's invoice will be if nothing changes before it: a DRAFT that is never
        saved (`invoice.upcoming` shows it), with the items still billed then and the pending prorations."""
        start, end = period_bounds(
            self.billing_anchor, self.interval, self.interval_count, self.period_index + 1
        )
        lines = item_lines(self.items, start, end)
        waiting = self._waiting_prorations(len(lines))
        return Invoice.draft(
            "",
            self.merchant_id,
            self.environment,
            self.id,
            self.customer_id,
            self.currency,
            lines + [p.line for p in waiting],
            rate,
            BillingReason.SUBSCRIPTION_CYCLE,
            start,
            end,
            now,
        )

    def record_attempt(
        self,
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
            self._invoice_paid(invoice, now)
            self._touch(invoice)
            return
        invoice.failure_code = failure_code
        if invoice.status is InvoiceStatus.UNCOLLECTIBLE:
            # The retry a new payment method made after the schedule ran out: no new schedule, and
            # the 30 days of UNPAID keep counting from when it became UNPAID.
            invoice.record_late_failure(charge_id)
            self._event(INVOICE_PAYMENT_FAILED, invoice.id, now)
            self._touch(invoice)
            return
        if invoice.first_failed_at is None:
            invoice.first_failed_at = now
        retry_at = next_retry(invoice.first_failed_at, now)
        invoice.record_failure(charge_id, now, retry_at)
        self._event(INVOICE_PAYMENT_FAILED, invoice.id, now)
        if retry_at is None:
            invoice.mark_uncollectible()
            if self.status is not SubscriptionStatus.CANCELED:
                self.status = SubscriptionStatus.UNPAID
                self.unpaid_at = now
                self._event(SUBSCRIPTION_UPDATED, self.id, now)
        elif self.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING):
            self.status = SubscriptionStatus.PAST_DUE
            self._event(SUBSCRIPTION_UPDATED, self.id, now)
        self._touch(invoice)

    def void_invoice(self, invoice_id: str, now: datetime) -> Invoice:
        """`POST /invoices/{id}/void` (DRAFT or OPEN): the invoice is forgiven, its lines with it. A
        PAST_DUE subscription with nothing else owed is ACTIVE again."""
        invoice = next((inv for inv in self.invoices if inv.id == invoice_id), None)
        if invoice is None:
            raise StateConflict("Only a DRAFT or OPEN invoice can be voided.", param="id")
        invoice.void()
        self._event(INVOICE_VOIDED, invoice.id, now)
        owed = [inv for inv in self.invoices if inv.status is InvoiceStatus.OPEN]
        if self.status is SubscriptionStatus.PAST_DUE and not owed:
            self.status = SubscriptionStatus.ACTIVE
            self._event(SUBSCRIPTION_UPDATED, self.id, now)
        self._touch(invoice)
        return invoice

    def due_retry(self, now: datetime) -> Invoice | None:
        """The OPEN invoice whose next dunning retry is due by `now`, if any."""
        due = [
            inv
            for inv in self.invoices
            if inv.status is InvoiceStatus.OPEN
            and inv.next_attempt_at is not None
            and inv.next_attempt_at <= now
        ]
        return min(due, key=lambda inv: inv.next_attempt_at or now) if due else None

    def settle_free_invoice(self, invoice: Invoice, now: datetime) -> None:
        """Nothing to charge (the balance covered it, a total not above zero, or a due carried): PAID."""
        invoice.settle_without_charge(now)
        self._invoice_paid(invoice, now)
        self._touch(invoice)

    # -- preview --------------------------------------------------------------------------------------

    def preview_lines(
        self, invoice_lines: Sequence[InvoiceLine], rate: TaxRate | None, due_now: bool
    ) -> Preview:
        """Kept for the schema test that renders a preview from a subscription (the service: `Preview.of`)."""
        return Preview.of(invoice_lines, rate, due_now)

    # -- internals ----------------------------------------------------------------------------------

    def _invoice_paid(self, invoice: Invoice, now: datetime) -> None:
        # The merchant earns only what a payment method was charged (DESIGN §10.2); no charge, no fee.
        if invoice.charge_id is not None:
            fee_net = merchant_credit(invoice.charged_cents, invoice.tax_share_cents)
            invoice.merchant_fee_cents, invoice.merchant_net_cents = fee_net
        for pending in self.prorations:
            if pending.invoice_id == invoice.id:
                pending.billed = True
        still_open = any(inv.status is InvoiceStatus.OPEN for inv in self.invoices if inv is not invoice)
        if self.status is SubscriptionStatus.PAST_DUE and not still_open:
            self.status = SubscriptionStatus.ACTIVE
            self._event(SUBSCRIPTION_UPDATED, self.id, now)
        elif self.status is SubscriptionStatus.UNPAID and not self.owed():
            self.status = SubscriptionStatus.ACTIVE
            self.unpaid_at = None
            self._skip_unpaid_periods(now)
            self._event(SUBSCRIPTION_UPDATED, self.id, now)
        self._event(INVOICE_PAID, invoice.id, now)

    def _skip_unpaid_periods(self, now: datetime) -> None:
        """An UNPAID subscription is not billed (DESIGN §9: no more invoices), so the periods that ended
        while it was are not billed when it pays up either: it moves to the period before the one in
        progress, whose end falls due at once and invoices the period in progress — one invoice, not
        one per missed period, and never an `invoice.upcoming` for a skipped one."""
        index, _, _ = period_at(self.billing_anchor, self.interval, self.interval_count, now)
        if index - 1 <= self.period_index:
            return
        self.period_index = index - 1
        self.current_period_start, self.current_period_end = period_bounds(
            self.billing_anchor, self.interval, self.interval_count, self.period_index
        )
        self.notices.add((INVOICE_UPCOMING, self.current_period_end))

    def _settle_item_move(
        self,
        item: SubscriptionItem,
        before: int,
        behavior: ItemProration,
        rate: TaxRate | None,
        now: datetime,
        what: str,
    ) -> None:
        """An item went from `before` units to its quantity (an add: from 0). `none`: nothing now (added
        units start with the next period's invoice). Otherwise the rest of the period is prorated by
        billed time (billed_time.py); `charge_immediately` invoices a charge now, a credit always waits
        for the next invoice (nothing is refunded mid-period)."""
        if not self._prorates(behavior is not ItemProration.NONE):
            return
        made = [
            self._defer(item.id, line, now)
            for line in billed_time.quantity_move(item, before, self._period, now, what)
        ]
        item.proration_amount_cents = sum(p.line.amount_cents for p in made)
        charges = [p for p in made if p.line.amount_cents > 0]
        if behavior is ItemProration.CHARGE_IMMEDIATELY and charges:
            self._invoice_prorations(charges, BillingReason.SUBSCRIPTION_UPDATE, rate, now)

    def _next_regular_lines(self) -> list[InvoiceLine]:
        """The item lines of the next period's invoice at today's prices and quantities (DESIGN §10.3)."""
        start, end = period_bounds(
            self.billing_anchor, self.interval, self.interval_count, self.period_index + 1
        )
        return item_lines(self.items, start, end)

    def check_invoice_limit(self, rate: TaxRate | None, param: str) -> None:
        """400 `amount_too_large` on `param` when the next regular invoice could not be charged."""
        check_invoice_limit(self._next_regular_lines(), rate, param)

    def _waiting_prorations(self, taken_lines: int) -> list[PendingProration]:
        """The prorations no invoice took yet that fit on the next one beside `taken_lines` item lines
        (MAX_INVOICE_LINES; the oldest first, the rest wait for the invoice after) — a credit larger than
        it makes a negative total, credited to the customer's balance — charges first, then credits."""
        waiting = prorations_that_fit([p for p in self.prorations if p.invoice_id is None], taken_lines)
        return sorted(waiting, key=lambda p: p.line.amount_cents < 0)

    def _invoice_prorations(
        self, fresh: Sequence[PendingProration], reason: BillingReason, rate: TaxRate | None, now: datetime
    ) -> Invoice | None:
        """An invoice of the prorations a change just made, settled now: charged, or credited to the
        customer's balance when its total is not above zero, or carried when it is below a charge
        (DESIGN §10.1) — so nothing waits and nothing is lost."""
        if not fresh:
            return None
        invoice = self._open_invoice(reason, [p.line for p in fresh], rate, now)
        for pending in fresh:
            pending.invoice_id = invoice.id
        return invoice

    def _open_invoice(
        self, reason: BillingReason, lines: Sequence[InvoiceLine], rate: TaxRate | None, now: datetime
    ) -> Invoice:
        invoice = open_invoice(
            self.merchant_id,
            self.environment,
            self.id,
            self.customer_id,
            self.currency,
            lines,
            rate,
            reason,
            self.current_period_start,
            self.current_period_end,
            now,
        )
        self.latest_invoice = invoice.id
        self._touch(invoice)
        self._event(INVOICE_CREATED, invoice.id, now)
        return invoice

    def _touch(self, invoice: Invoice) -> None:
        if all(known is not invoice for known in self.invoices):
            self.invoices.append(invoice)

    def _prorates(self, wanted: bool) -> bool:
        """Prorations only for a paying subscription: a trial's period is free."""
        return wanted and self.status is SubscriptionStatus.ACTIVE

    @property
    def _period(self) -> billed_time.Period:
        return billed_time.Period(self.current_period_start, self.current_period_end)

    def _defer(self, item_id: str, line: InvoiceLine, now: datetime) -> PendingProration:
        pending = PendingProration(
            id=new_id("pp_", 24), item_id=item_id, line=line, created=now.replace(microsecond=0)
        )
        self.prorations.append(pending)
        return pending

    def _live_item(self, item_id: str) -> SubscriptionItem:
        item = self.item(item_id)
        if item is None:
            raise item_not_found(item_id)
        if item.status is ItemStatus.REMOVED or item.removed_at is not None:
            raise StateConflict("This item has been removed.", param="itemId")
        return item

    def _require(self, allowed: frozenset[SubscriptionStatus], action: str) -> None:
        if self.status not in allowed:
            raise StateConflict(
                f"Cannot {action} a subscription with status {self.status.value}.", param="status"
            )

    def _event(self, event_type: str, object_id: str, now: datetime) -> None:
        self.pending_events.append(DomainEvent(event_type, object_id, now.replace(microsecond=0)))
