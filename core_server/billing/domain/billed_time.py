"""Proration bills exactly the time held (DESIGN §10.4), over one period: the lines an item move makes.

Rule: a credit only returns time that was billed, and a charge only bills time that no other line bills.
An item keeps the units some line has billed up to the period's end (`SubscriptionItem.billed`); a move
reads and updates them here, and returns the lines — the subscription's moves (subscription_item_moves.py,
subscription_lifecycle.py) defer or invoice them. Pure: the period, the item and `now` come from the
caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core_server.billing.domain.invoice import InvoiceLine, LineKind
from core_server.billing.domain.invoice_composition import proration_line
from core_server.billing.domain.proration import Proration, prorate
from core_server.billing.domain.subscription_item import BilledTranche, SubscriptionItem


@dataclass(frozen=True, slots=True)
class Period:
    """The current period, where every proration falls."""

    start: datetime
    end: datetime

    def prorate(self, unit_amount_cents: int, quantity_delta: int, now: datetime) -> Proration:
        """The rest of the period from `now` (clamped into it) for `quantity_delta` units."""
        at = min(max(now, self.start), self.end)
        return prorate(unit_amount_cents, quantity_delta, self.start, self.end, at)

    def line(self, kind: LineKind, description: str, price_id: str, proration: Proration) -> InvoiceLine:
        return proration_line(kind, description, price_id, proration, self.start, self.end)

    def charge(
        self, unit_amount_cents: int, quantity: int, price_id: str, what: str, now: datetime
    ) -> InvoiceLine:
        """`quantity` more units billed at `unit_amount_cents` for the rest of the period."""
        proration = self.prorate(unit_amount_cents, quantity, now)
        return self.line(LineKind.PAST_DUE_PRORATION, what, price_id, proration)

    def credits(self, taken: Sequence[BilledTranche], what: str, now: datetime) -> list[InvoiceLine]:
        """The unused rest of billed units given back: one credit line per price they were billed at
        (usually one), naming that price, each with its own proration inputs."""
        quantities: dict[tuple[str, int], int] = {}
        for tranche in taken:
            key = (tranche.price_id, tranche.unit_amount_cents)
            quantities[key] = quantities.get(key, 0) + tranche.quantity
        return [
            self.line(LineKind.CREDIT, what, price_id, self.prorate(unit, -quantity, now))
            for (price_id, unit), quantity in quantities.items()
            if quantity > 0
        ]


def quantity_move(
    item: SubscriptionItem, before: int, period: Period, now: datetime, what: str
) -> list[InvoiceLine]:
    """A prorated move of `item` from `before` units to `item.quantity` (an add: from 0).

    More units are charged only for time no line bills yet: units billed but no longer held (dropped
    with `none`) are already paid to the period's end. Fewer units give back only billed units that are
    no longer held, the newest first. Updates `item.billed`."""
    quantity = item.quantity
    if quantity > before:
        fresh = quantity - max(before, item.billed_quantity)
        if fresh <= 0:
            return []
        item.bill_more(fresh)
        return [period.charge(item.unit_amount_cents, fresh, item.price_id, f"Remaining time on {what}", now)]
    taken = item.unbill(max(0, min(item.billed_quantity, before) - quantity))
    return period.credits(taken, f"Unused time on {what}", now)


def unused_rest(item: SubscriptionItem, period: Period, now: datetime) -> list[InvoiceLine]:
    """The unused billed rest of the period comes back: an immediate removal (whatever behaviour the item
    was added with), or a resume whose new period overlaps it. Nothing for units never billed. The item
    holds nothing billed afterwards."""
    taken = item.unbill(min(item.billed_quantity, item.quantity))
    item.billed = ()
    return period.credits(taken, f"Unused time on {item.quantity} × {item.price_id}", now)


def price_change(
    item: SubscriptionItem, new_price_id: str, new_unit_amount_cents: int, period: Period, now: datetime
) -> list[InvoiceLine]:
    """A prorated price change of `item`: what was billed of the held units comes back at the price it
    was billed at, and every held unit is charged the new price for the rest of the period. The item
    takes the new price; its held units are billed at it from now."""
    taken = item.unbill(min(item.billed_quantity, item.quantity))
    lines = [
        *period.credits(taken, f"Unused time on {item.price_id}", now),
        period.charge(
            new_unit_amount_cents, item.quantity, new_price_id, f"Remaining time on {new_price_id}", now
        ),
    ]
    item.price_id = new_price_id
    item.unit_amount_cents = new_unit_amount_cents
    item.bill_more(item.quantity)
    return lines
