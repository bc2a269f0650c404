"""The Subscription aggregate: its fields, its start, the reads and the small changes it makes itself, and
the one entry point to every move on it (spec: Subscription transitions and item moves; DESIGN §9). The
rules of those moves are functions apart, each module named for what it holds: the status table in
subscription_status.py, the price and item moves in subscription_item_moves.py, cancel, pause, resume and
the billing run's steps in subscription_lifecycle.py, and the invoices it asks to be paid in
subscription_invoicing.py. What those invoices are made of, and the dunning schedule, are in
invoice_composition.py; the event types in events.py.

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

from core_server.billing.domain import (
    billed_time,
    subscription_invoicing,
    subscription_item_moves,
    subscription_lifecycle,
)
from core_server.billing.domain.catalog import Price, check_startable
from core_server.billing.domain.events import SUBSCRIPTION_CREATED, SUBSCRIPTION_UPDATED
from core_server.billing.domain.invoice import BillingReason, Invoice, InvoiceLine, InvoiceStatus
from core_server.billing.domain.periods import period_bounds
from core_server.billing.domain.subscription_changes import PriceProration
from core_server.billing.domain.subscription_item import (
    ItemProration,
    PendingProration,
    SubscriptionItem,
)
from core_server.billing.domain.subscription_lifecycle import PendingCancelRefund
from core_server.billing.domain.subscription_status import (
    OPEN_STATUSES,
    SubscriptionStatus,
    require_status,
    still_owed,
)
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.ids import new_id
from core_server.kernel.domain.state_copies import FieldCopy

SUBSCRIPTION_ID_RE = re.compile(r"^sub_[A-Za-z0-9]{24}$")
COLLECTION_METHOD = "charge_automatically"


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
        subscription.emit(SUBSCRIPTION_CREATED, subscription.id, now)
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

    # -- metadata, tax ------------------------------------------------------------------------------

    def update_details(self, metadata: dict[str, str] | None, tax_rate_id: str | None, now: datetime) -> bool:
        """Metadata (merged; an empty value deletes its key) and the tax rate ("" clears it)."""
        require_status(self.status, OPEN_STATUSES, "update")
        before = (dict(self.metadata), self.tax_rate_id)
        if metadata:
            merged = {**self.metadata, **metadata}
            self.metadata = {key: value for key, value in merged.items() if value != ""}
        if tax_rate_id is not None:
            self.tax_rate_id = tax_rate_id or None
        changed = before != (self.metadata, self.tax_rate_id)
        if changed:
            self.emit(SUBSCRIPTION_UPDATED, self.id, now)
        return changed

    # -- price, items (subscription_item_moves.py) ----------------------------------------------------

    def change_price(
        self, new_price: Price, behavior: PriceProration, rate: TaxRate | None, now: datetime
    ) -> Sequence[InvoiceLine]:
        return subscription_item_moves.change_price(self, new_price, behavior, rate, now)

    def add_item(
        self,
        price: Price,
        quantity: int,
        behavior: ItemProration,
        metadata: dict[str, str],
        rate: TaxRate | None,
        now: datetime,
    ) -> SubscriptionItem:
        return subscription_item_moves.add_item(self, price, quantity, behavior, metadata, rate, now)

    def update_item(
        self, item_id: str, quantity: int, behavior: ItemProration | None, rate: TaxRate | None, now: datetime
    ) -> SubscriptionItem:
        return subscription_item_moves.update_item(self, item_id, quantity, behavior, rate, now)

    def remove_item(self, item_id: str, immediate: bool, now: datetime) -> SubscriptionItem:
        return subscription_item_moves.remove_item(self, item_id, immediate, now)

    # -- cancel, pause, resume, and the billing run's steps (subscription_lifecycle.py) -------------------

    def cancel(
        self,
        at_period_end: bool,
        now: datetime,
        *,
        refund_of: Invoice | None = None,
        key: str | None = None,
    ) -> None:
        subscription_lifecycle.cancel(self, at_period_end, now, refund_of=refund_of, key=key)

    def finish_cancel_refund(self, refund_id: str | None, now: datetime) -> None:
        subscription_lifecycle.finish_cancel_refund(self, refund_id, now)

    def pause(self, now: datetime) -> None:
        subscription_lifecycle.pause(self, now)

    def resume(self, rate: TaxRate | None, now: datetime) -> Invoice | None:
        return subscription_lifecycle.resume(self, rate, now)

    def end_trial(self, rate: TaxRate | None, at: datetime) -> Invoice | None:
        return subscription_lifecycle.end_trial(self, rate, at)

    def end_period(self, rate: TaxRate | None, at: datetime) -> Invoice | None:
        return subscription_lifecycle.end_period(self, rate, at)

    def cancel_unpaid(self, at: datetime) -> None:
        subscription_lifecycle.cancel_unpaid(self, at)

    def send_notice(
        self, event_type: str, announced: datetime, at: datetime, rate: TaxRate | None = None
    ) -> None:
        subscription_lifecycle.send_notice(self, event_type, announced, at, rate)

    # -- invoices (subscription_invoicing.py) ---------------------------------------------------------

    def open_period_invoice(self, reason: BillingReason, rate: TaxRate | None, now: datetime) -> Invoice:
        return subscription_invoicing.open_period_invoice(self, reason, rate, now)

    def upcoming_invoice(self, rate: TaxRate | None, now: datetime) -> Invoice:
        return subscription_invoicing.upcoming_invoice(self, rate, now)

    def record_attempt(
        self,
        invoice: Invoice,
        charge_id: str | None,
        paid: bool,
        now: datetime,
        failure_code: str | None = None,
    ) -> None:
        subscription_invoicing.record_attempt(self, invoice, charge_id, paid, now, failure_code)

    def void_invoice(self, invoice_id: str, now: datetime) -> Invoice:
        return subscription_invoicing.void_invoice(self, invoice_id, now)

    def due_retry(self, now: datetime) -> Invoice | None:
        return subscription_invoicing.due_retry(self, now)

    def settle_free_invoice(self, invoice: Invoice, now: datetime) -> None:
        subscription_invoicing.settle_free_invoice(self, invoice, now)

    def check_invoice_limit(self, rate: TaxRate | None, param: str) -> None:
        subscription_invoicing.check_next_invoice(self, rate, param)

    # -- what the move modules share --------------------------------------------------------------------

    @property
    def period(self) -> billed_time.Period:
        return billed_time.Period(self.current_period_start, self.current_period_end)

    def prorates(self, wanted: bool) -> bool:
        """Prorations only for a paying subscription: a trial's period is free."""
        return wanted and self.status is SubscriptionStatus.ACTIVE

    def defer_proration(self, item_id: str, line: InvoiceLine, now: datetime) -> PendingProration:
        """A proration pending for the next invoice (or the one a change opens at once)."""
        pending = PendingProration(
            id=new_id("pp_", 24), item_id=item_id, line=line, created=now.replace(microsecond=0)
        )
        self.prorations.append(pending)
        return pending

    def keep_invoice(self, invoice: Invoice) -> None:
        """`invoice` is among those this turn created or changed (storage upserts them)."""
        if all(known is not invoice for known in self.invoices):
            self.invoices.append(invoice)

    def emit(self, event_type: str, object_id: str, now: datetime) -> None:
        self.pending_events.append(DomainEvent(event_type, object_id, now.replace(microsecond=0)))
