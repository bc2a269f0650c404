"""DESIGN §10.4 "a credit only returns time that was billed; a charge only bills time that no other line
bills", checked second by second: what the invoice lines bill for an item at each instant against the
quantity the customer held then, as the test's own record of its requests says.

An invoice line bills a quantity over an interval: a full line (`proration: null`) its `quantity` over
[period_start, period_end); a proration line its signed `quantity_delta` over [period_end −
seconds_remaining, period_end). Summed per item, that is the *billed quantity* b(t). The record gives
the *held quantity* h(t). Then, at every instant before the start of the subscription's latest period
invoice (by then every pending line of earlier periods is on an invoice):

- b(t) ≥ 0: a credit never returns time that was not billed;
- b(t) ≤ u(t), where u(t) = h(t), except that a decrease made with `none` leaves the old quantity billed
  until its period ends (no credit, by the behaviour's definition): time is never billed twice;
- b(t) = h(t) for an item changed only with prorating behaviours, on a subscription that stayed ACTIVE
  with every charge paid: what the customer pays is exactly unit × quantity × time held.

Items are told apart by price: the test never holds two items of one add-on price at once, and every
base price belongs to the base item (group `BASE`), whichever price it has at the moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.e2e.billing_invariant_checks import PERIOD_REASONS, where
from tests.e2e.subscription_api_helpers import recompute

JSON = dict[str, Any]

BASE = "base"

DRIFT = 5
"""Seconds between the clock read the record keeps and the second the core made the change."""


@dataclass
class QtyChange:
    at: int
    quantity: int
    none_decrease: bool = False
    """Lowered with `none`: the quantity before stays billed to the end of its period."""


@dataclass
class Pause:
    at: int
    frozen_end: int
    """current_period_end when paused: billed up to there, nothing after until the resume."""
    resumed: int | None = None


@dataclass
class HeldRecord:
    """What one subscription's customer held, from the test's requests (times from the sandbox clock)."""

    subscription_id: str
    created: int
    changes: dict[str, list[QtyChange]] = field(default_factory=dict)
    pauses: list[Pause] = field(default_factory=list)
    loose: set[str] = field(default_factory=set)
    """Groups changed with `none` at least once: not billed for some held time, so no lower bound."""
    dirty: bool = False
    """Paused, canceled, seen in another status than ACTIVE, or a charge of it failed: no lower bound."""

    def change(self, group: str, at: int, quantity: int, *, none: bool = False) -> None:
        before = self.quantity_now(group)
        self.changes.setdefault(group, []).append(QtyChange(at, quantity, none and quantity < before))
        if none:
            self.loose.add(group)

    def quantity_now(self, group: str) -> int:
        changes = self.changes.get(group, [])
        return changes[-1].quantity if changes else 0

    def held(self, group: str, t: float) -> int:
        quantity = 0
        for change in sorted(self.changes.get(group, []), key=lambda c: c.at):
            if change.at <= t:
                quantity = change.quantity
        for pause in self.pauses:
            if pause.frozen_end <= t and (pause.resumed is None or t < pause.resumed):
                return 0
        return quantity

    def upper(self, group: str, t: float, period_start: int | None) -> int:
        bound = self.held(group, t)
        if period_start is None:
            return bound
        ordered = sorted(self.changes.get(group, []), key=lambda c: c.at)
        for index, change in enumerate(ordered):
            if change.none_decrease and period_start <= change.at <= t and index > 0:
                bound = max(bound, ordered[index - 1].quantity)
        return bound

    def lower(self, group: str, t: float) -> int:
        return 0 if self.dirty or group in self.loose else self.held(group, t)


def group_of(price_id: str, base_prices: set[str]) -> str:
    return BASE if price_id in base_prices else price_id


def billed_intervals(invoices: list[JSON], base_prices: set[str]) -> list[tuple[str, int, int, int, JSON]]:
    """(group, start, end, signed quantity, line) of every line of the non-void invoices."""
    found = []
    for inv in invoices:
        if inv["status"] in ("DRAFT", "VOID"):
            continue
        for line in inv["lines"]:
            group = group_of(line["price_id"], base_prices)
            proration = line["proration"]
            if proration is None:
                found.append((group, line["period_start"], line["period_end"], line["quantity"], line))
            else:
                start = line["period_end"] - proration["seconds_remaining"]
                found.append((group, start, line["period_end"], proration["quantity_delta"], line))
    return found


def check_line_amounts(invoices: list[JSON], price_amounts: dict[str, int]) -> None:
    """Every line is unit × quantity (a full period) or round_half_up(unit × |Δq| × remaining / total)
    signed like Δq, with the unit its price's amount and total its period's seconds: each line is within
    half a cent of its exact value, so n lines of an item are within n/2 cents of unit × quantity × time."""
    for inv in invoices:
        for line in inv["lines"]:
            unit = price_amounts[line["price_id"]]
            proration = line["proration"]
            if proration is None:
                assert line["amount_cents"] == unit * line["quantity"], f"full line ≠ unit × q: {line}"
                continue
            # A credit returns time at the price it was billed at (DESIGN §10.4), and names that price.
            assert proration["unit_amount_cents"] == unit, f"proration unit ≠ its price's amount: {line}"
            assert proration["seconds_total"] == line["period_end"] - line["period_start"], f"{line}"
            assert 0 <= proration["seconds_remaining"] <= proration["seconds_total"], f"{line}"
            assert line["amount_cents"] == recompute(proration), (
                f"line ≠ its recomputation: {line} {where(inv)}"
            )


BOUNDS = ("billed_never_negative", "billed_at_most_held", "billed_at_least_held")
"""The three bounds of the module docstring, by the names docs/billing-invariants.md gives them."""


def check_coverage(
    record: HeldRecord, invoices: list[JSON], base_prices: set[str], bounds: tuple[str, ...] = BOUNDS
) -> None:
    """The `bounds` of the module docstring, at the middle of every stretch between two breakpoints
    (line ends, the record's changes, pauses, periods) longer than 2 × DRIFT."""
    periods = sorted(
        (inv["period_start"], inv["period_end"])
        for inv in invoices
        if inv["billing_reason"] in PERIOD_REASONS and inv["status"] not in ("DRAFT", "VOID")
    )
    if not periods:
        return
    horizon = periods[-1][0]
    lines = billed_intervals(invoices, base_prices)
    points = {record.created, horizon}
    for start, end in periods:
        points.update((start, end))
    points.update(p for _, start, end, _, _ in lines for p in (start, end))
    points.update(c.at for changes in record.changes.values() for c in changes)
    for pause in record.pauses:
        points.update(p for p in (pause.at, pause.frozen_end, pause.resumed) if p is not None)
    ordered = sorted(p for p in points if record.created <= p <= horizon)
    groups = set(record.changes) | {group for group, *_ in lines}
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b - a <= 2 * DRIFT:
            continue
        t = (a + b) / 2
        period_start = next((s for s, e in periods if s <= t < e), None)
        for group in sorted(groups):
            covering = [(q, line) for g, s, e, q, line in lines if g == group and s <= t < e]
            billed = sum(q for q, _ in covering)
            context = (
                f"{group} at {t:.0f} (sub {record.subscription_id}): lines {[line for _, line in covering]}"
            )
            if "billed_never_negative" in bounds:
                assert billed >= 0, f"a credit returned time never billed: billed {billed}, {context}"
            upper = record.upper(group, t, period_start)
            if "billed_at_most_held" in bounds:
                assert billed <= upper, (
                    f"billed {billed} > held {upper}: billed twice or not credited, {context}"
                )
            lower = record.lower(group, t)
            if "billed_at_least_held" in bounds:
                assert billed >= lower, f"held {lower} but billed {billed}: held and not billed, {context}"
