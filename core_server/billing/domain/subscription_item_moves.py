"""A subscription's item moves: the base item's price change, and adding, re-quantifying and removing an
item, each with the prorations it makes (spec: Subscription item moves; DESIGN §9, §10.3, §10.4). What an
item and a pending proration are is in subscription_item.py, the billed-time arithmetic in billed_time.py.

Functions of the aggregate, which calls them (subscription.py): each takes the subscription it changes,
and the prices and `now` it needs from the caller. A move is accepted only while the subscription is
TRIALING or ACTIVE, and prorated only while it is ACTIVE (a trial's period is free).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from core_server.billing.domain import billed_time
from core_server.billing.domain.catalog import Price, check_compatible, check_startable
from core_server.billing.domain.events import ITEM_CREATED, ITEM_DELETED, ITEM_UPDATED, SUBSCRIPTION_UPDATED
from core_server.billing.domain.invoice import BillingReason, InvoiceLine
from core_server.billing.domain.subscription_changes import PriceProration
from core_server.billing.domain.subscription_invoicing import check_next_invoice, invoice_prorations
from core_server.billing.domain.subscription_item import (
    MAX_ACTIVE_ITEMS,
    ItemProration,
    ItemStatus,
    SubscriptionItem,
    check_quantity,
    item_not_found,
)
from core_server.billing.domain.subscription_status import CHANGEABLE, require_status
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.errors import ParameterInvalid, StateConflict

if TYPE_CHECKING:
    from core_server.billing.domain.subscription import Subscription


def change_price(
    subscription: Subscription,
    new_price: Price,
    behavior: PriceProration,
    rate: TaxRate | None,
    now: datetime,
) -> Sequence[InvoiceLine]:
    """The base item takes the new price; prorations per `behavior` (none during a trial).

    Returns the proration lines created (for the preview and for `always_invoice`)."""
    require_status(subscription.status, CHANGEABLE, "change the price of")
    check_startable(new_price)
    check_compatible(
        new_price, subscription.currency, subscription.interval, subscription.interval_count, "price_id"
    )
    base = subscription.base_item
    if new_price.id == base.price_id:
        return []
    lines: list[InvoiceLine] = []
    prorated = subscription.prorates(behavior is not PriceProration.NONE)
    if prorated:
        lines = billed_time.price_change(
            base, new_price.id, new_price.terms.amount_cents, subscription.period, now
        )
    else:
        base.price_id, base.unit_amount_cents = new_price.id, new_price.terms.amount_cents
    subscription.price_id = new_price.id
    check_next_invoice(subscription, rate, "price_id")
    if prorated:
        made = [subscription.defer_proration(base.id, line, now) for line in lines]
        base.proration_amount_cents = sum(line.amount_cents for line in lines)
        if behavior is PriceProration.ALWAYS_INVOICE:
            invoice_prorations(subscription, made, BillingReason.SUBSCRIPTION_UPDATE, rate, now)
    subscription.emit(SUBSCRIPTION_UPDATED, subscription.id, now)
    return lines


def add_item(
    subscription: Subscription,
    price: Price,
    quantity: int,
    behavior: ItemProration,
    metadata: dict[str, str],
    rate: TaxRate | None,
    now: datetime,
) -> SubscriptionItem:
    require_status(subscription.status, CHANGEABLE, "add an item to")
    check_startable(price, "priceId")
    check_compatible(
        price, subscription.currency, subscription.interval, subscription.interval_count, "priceId"
    )
    check_quantity(quantity)
    if sum(1 for known in subscription.items if known.status is ItemStatus.ACTIVE) >= MAX_ACTIVE_ITEMS:
        raise ParameterInvalid(
            f"A subscription has at most {MAX_ACTIVE_ITEMS} active items.", param="priceId"
        )
    item = SubscriptionItem.new(
        subscription.id, subscription.environment, price, quantity, behavior, metadata, now, base=False
    )
    subscription.items.append(item)
    check_next_invoice(subscription, rate, "priceId")
    _settle_item_move(subscription, item, 0, behavior, rate, now, f"{quantity} × {price.id}")
    subscription.emit(ITEM_CREATED, item.id, now)
    return item


def update_item(
    subscription: Subscription,
    item_id: str,
    quantity: int,
    behavior: ItemProration | None,
    rate: TaxRate | None,
    now: datetime,
) -> SubscriptionItem:
    require_status(subscription.status, CHANGEABLE, "change an item of")
    item = _live_item(subscription, item_id)
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
        check_next_invoice(subscription, rate, "quantity")
    _settle_item_move(subscription, item, before, chosen, rate, now, f"Quantity {before} → {quantity}")
    subscription.emit(ITEM_UPDATED, item.id, now)
    return item


def remove_item(subscription: Subscription, item_id: str, immediate: bool, now: datetime) -> SubscriptionItem:
    """Now: removed, with a credit for the unused billed part of the period whatever behaviour the
    item was added with (DESIGN §10.4: nothing for time never billed), pending for the next invoice.
    At period end: stays active until then, no proration."""
    require_status(subscription.status, CHANGEABLE, "remove an item of")
    item = _live_item(subscription, item_id)
    if item.is_base_item:
        raise StateConflict("The base item of a subscription cannot be removed.", param="itemId")
    if immediate:
        item.status = ItemStatus.REMOVED
        item.removed_at = now.replace(microsecond=0)
        item.proration_amount_cents = 0
        if subscription.prorates(True):
            for line in billed_time.unused_rest(item, subscription.period, now):
                subscription.defer_proration(item.id, line, now)
                item.proration_amount_cents += line.amount_cents
        item.billed = ()
    else:
        item.removed_at = subscription.current_period_end
    subscription.emit(ITEM_DELETED, item.id, now)
    return item


def _settle_item_move(
    subscription: Subscription,
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
    if not subscription.prorates(behavior is not ItemProration.NONE):
        return
    made = [
        subscription.defer_proration(item.id, line, now)
        for line in billed_time.quantity_move(item, before, subscription.period, now, what)
    ]
    item.proration_amount_cents = sum(p.line.amount_cents for p in made)
    charges = [p for p in made if p.line.amount_cents > 0]
    if behavior is ItemProration.CHARGE_IMMEDIATELY and charges:
        invoice_prorations(subscription, charges, BillingReason.SUBSCRIPTION_UPDATE, rate, now)


def _live_item(subscription: Subscription, item_id: str) -> SubscriptionItem:
    item = subscription.item(item_id)
    if item is None:
        raise item_not_found(item_id)
    if item.status is ItemStatus.REMOVED or item.removed_at is not None:
        raise StateConflict("This item has been removed.", param="itemId")
    return item
