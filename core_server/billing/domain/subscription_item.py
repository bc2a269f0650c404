"""A subscription's items and the prorations their moves leave pending (spec: Subscription item, Pending
proration; DESIGN §9). The subscription aggregate (subscription.py) moves them, by the rules of
subscription_item_moves.py; here is what they are."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from core_server.billing.domain.catalog import Price
from core_server.billing.domain.invoice import InvoiceLine
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.ids import new_id
from core_server.kernel.domain.state_copies import FieldCopy, Immutable

ITEM_ID_RE = re.compile(r"^si_item_[A-Za-z0-9]{24}$")
MAX_QUANTITY = 10_000
MAX_ACTIVE_ITEMS = 20
"""DESIGN §10.3: at most 20 items with status `active` per subscription, the base item included."""


@dataclass(frozen=True, slots=True)
class BilledTranche(Immutable):
    """`quantity` units of an item whose time up to the current period's end some invoice line bills at
    `unit_amount_cents` each (DESIGN §10.4): a credit may return only such time, a charge bills only
    time no tranche covers. `price_id` names the price it was billed at, which a credit line names."""

    unit_amount_cents: int
    quantity: int
    price_id: str


class ItemStatus(StrEnum):
    ACTIVE = "active"
    REMOVED = "removed"


class ItemProration(StrEnum):
    """How an item move settles the rest of the period (spec: Proration behaviors)."""

    DEFER_TO_NEXT_CYCLE = "defer_to_next_cycle"
    CHARGE_IMMEDIATELY = "charge_immediately"
    NONE = "none"


@dataclass(slots=True)
class SubscriptionItem(FieldCopy):
    id: str
    subscription_id: str
    environment: Environment
    price_id: str
    unit_amount_cents: int
    """The price's amount when the item took it: prices never change, so this is the price's amount."""
    quantity: int
    status: ItemStatus
    proration_behavior: ItemProration
    proration_amount_cents: int
    is_base_item: bool
    added_at: datetime
    removed_at: datetime | None
    metadata: dict[str, str]
    created: datetime
    billed: tuple[BilledTranche, ...] = ()
    """What of the current period is billed (oldest first): the period invoice's line, then the units
    each prorated charge added since; empty for an item added with `none` until its first full period."""

    @classmethod
    def new(
        cls,
        subscription_id: str,
        environment: Environment,
        price: Price,
        quantity: int,
        behavior: ItemProration,
        metadata: dict[str, str],
        now: datetime,
        *,
        base: bool,
    ) -> SubscriptionItem:
        """An ACTIVE item of `quantity` × `price`, added at `now` (whole seconds, as the API shows it)."""
        now = now.replace(microsecond=0)
        return cls(
            id=new_id("si_item_", 24),
            subscription_id=subscription_id,
            environment=environment,
            price_id=price.id,
            unit_amount_cents=price.terms.amount_cents,
            quantity=quantity,
            status=ItemStatus.ACTIVE,
            proration_behavior=behavior,
            proration_amount_cents=0,
            is_base_item=base,
            added_at=now,
            removed_at=None,
            metadata=metadata,
            created=now,
        )

    @property
    def livemode(self) -> bool:
        return self.environment.livemode

    @property
    def billed_quantity(self) -> int:
        return sum(tranche.quantity for tranche in self.billed)

    def bill_period(self) -> None:
        """A period invoice bills the item's whole quantity at its price for the whole period."""
        self.billed = (BilledTranche(self.unit_amount_cents, self.quantity, self.price_id),)

    def bill_more(self, quantity: int) -> None:
        """A prorated charge billed `quantity` more units at the item's price up to the period's end."""
        if quantity > 0:
            self.billed = (*self.billed, BilledTranche(self.unit_amount_cents, quantity, self.price_id))

    def unbill(self, quantity: int) -> tuple[BilledTranche, ...]:
        """Takes `quantity` billed units off, the newest first; returns what was taken (to credit)."""
        taken: list[BilledTranche] = []
        kept = list(self.billed)
        while quantity > 0 and kept:
            last = kept.pop()
            used = min(quantity, last.quantity)
            taken.append(BilledTranche(last.unit_amount_cents, used, last.price_id))
            if used < last.quantity:
                kept.append(BilledTranche(last.unit_amount_cents, last.quantity - used, last.price_id))
            quantity -= used
        self.billed = tuple(kept)
        return tuple(taken)

    def billed_in(self, period_start: datetime) -> bool:
        """Whether the invoice of the period starting at `period_start` bills this item."""
        if self.status is ItemStatus.REMOVED:
            return False
        return self.removed_at is None or self.removed_at > period_start


@dataclass(slots=True)
class PendingProration(FieldCopy):
    """A proration charge (positive) or credit (negative) waiting for an invoice; BILLED once the
    invoice that includes it is paid (spec: Pending proration)."""

    id: str
    item_id: str
    line: InvoiceLine
    created: datetime
    invoice_id: str | None = None
    billed: bool = False

    @property
    def status(self) -> str:
        return "BILLED" if self.billed else "PENDING"


def check_quantity(quantity: int) -> None:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise ParameterInvalid("quantity must be an integer of at least 1.", param="quantity")
    if quantity > MAX_QUANTITY:
        raise ParameterInvalid(f"quantity must be at most {MAX_QUANTITY}.", param="quantity")


def item_not_found(item_id: str) -> NotFound:
    """One answer for unknown items and items of another subscription."""
    return NotFound(f"No such subscription item: '{item_id[:100]}'", param="itemId")
