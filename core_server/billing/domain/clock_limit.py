"""How far one advance may move a merchant's TEST clock (DESIGN §10.5).

Every period an advance crosses is replayed by the billing run before the advance answers, so the step is
bounded by the merchant's shortest live price: at most two of its intervals from the TEST now (anchored
period arithmetic, so two months from Jan 31 is Mar 31), or 2 years when no subscription is live.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from core_server.billing.domain.periods import shift
from core_server.kernel.domain.sandbox_clock import AdvanceLimit, default_advance_limit

ADVANCE_INTERVALS = 2
"""How many intervals of the shortest live price one advance may cross."""


def advance_limit(test_now: datetime, intervals: Iterable[tuple[str, int]]) -> AdvanceLimit:
    """The limit for a merchant whose subscriptions that are not CANCELED bill every (interval, count).

    The shortest price is the one whose two intervals end first; none → the 2-year default.
    """
    best: tuple[datetime, str, int] | None = None
    for interval, count in intervals:
        latest = shift(test_now, interval, ADVANCE_INTERVALS * count)
        if best is None or latest < best[0]:
            best = (latest, interval, count)
    if best is None:
        return default_advance_limit(test_now)
    latest, interval, count = best
    every = interval if count == 1 else f"every {count} {_unit(interval)}s"
    return AdvanceLimit(latest, f"at most {ADVANCE_INTERVALS} intervals of its shortest price ({every})")


def _unit(interval: str) -> str:
    return {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year"}[interval]
