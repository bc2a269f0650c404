"""DESIGN §10.4 over one period: a credit only returns billed time, a charge only bills unbilled time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.billing.domain.billed_time import Period, price_change, quantity_move, unused_rest
from core_server.billing.domain.invoice import InvoiceLine
from core_server.billing.domain.subscription_item import (
    BilledTranche,
    ItemProration,
    ItemStatus,
    SubscriptionItem,
)
from core_server.kernel.domain.environment import Environment

START = datetime(2026, 3, 1, tzinfo=UTC)
PERIOD = Period(START, START + timedelta(days=30))
HALF = START + timedelta(days=15)


def item(quantity: int, billed: tuple[BilledTranche, ...], unit: int = 1_000) -> SubscriptionItem:
    return SubscriptionItem(
        id="si_item_" + "a" * 24,
        subscription_id="sub_1",
        environment=Environment.TEST,
        price_id="price_seat",
        unit_amount_cents=unit,
        quantity=quantity,
        status=ItemStatus.ACTIVE,
        proration_behavior=ItemProration.DEFER_TO_NEXT_CYCLE,
        proration_amount_cents=0,
        is_base_item=False,
        added_at=START,
        removed_at=None,
        metadata={},
        created=START,
        billed=billed,
    )


def amounts(lines: list[InvoiceLine]) -> list[int]:
    return [line.amount_cents for line in lines]


def test_more_units_are_charged_only_beyond_what_is_billed() -> None:
    seats = item(5, (BilledTranche(1_000, 2, "price_seat"),))  # 2 billed, 3 held free (added with none)
    assert amounts(quantity_move(seats, 3, PERIOD, HALF, "3 → 5")) == [1_000]  # 2 new × 1,000 × ½
    assert seats.billed_quantity == 4
    dropped = item(3, (BilledTranche(1_000, 5, "price_seat"),))  # 5 billed, 2 dropped with none
    dropped.quantity = 4
    assert quantity_move(dropped, 3, PERIOD, HALF, "3 → 4") == []  # the 4th seat is paid already


def test_fewer_units_give_back_only_billed_ones_newest_first() -> None:
    seats = item(1, (BilledTranche(1_000, 2, "price_seat"), BilledTranche(1_400, 1, "price_seat")))
    lines = quantity_move(seats, 3, PERIOD, HALF, "3 → 1")
    assert amounts(lines) == [-700, -500]  # the 1,400 seat first, then one 1,000 seat
    assert seats.billed == (BilledTranche(1_000, 1, "price_seat"),)
    unbilled = item(1, ())
    assert quantity_move(unbilled, 4, PERIOD, HALF, "4 → 1") == []


def test_a_unused_rest_credits_the_billed_part_only() -> None:
    assert amounts(unused_rest(item(2, (BilledTranche(1_000, 2, "price_seat"),)), PERIOD, HALF)) == [-1_000]
    assert unused_rest(item(2, ()), PERIOD, HALF) == []


def test_a_price_change_credits_what_was_billed_at_its_price() -> None:
    base = item(1, (BilledTranche(3_000, 1, "price_pro"),), unit=100_000)  # moved to 100,000 with none
    lines = price_change(base, "price_lite", 1_000, PERIOD, HALF)
    assert amounts(lines) == [-1_500, 500]
    assert lines[0].price_id == "price_pro"  # the credit names the price the time was billed at
    assert (base.price_id, base.billed) == ("price_lite", (BilledTranche(1_000, 1, "price_lite"),))
