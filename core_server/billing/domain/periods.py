"""Anchored billing periods (DESIGN §9): period n runs from anchor + n intervals to anchor + (n + 1).

Every bound is computed from the anchor, never from the previous bound, so a month clamped to its last
day (Jan 31 → Feb 28) does not pull the following months with it (→ Mar 31), and periods never drift.
Times are aware datetimes (UTC in this project); the time of day is kept.
"""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta

INTERVAL_DAYS = {"daily": 1, "weekly": 7}
INTERVAL_MONTHS = {"monthly": 1, "yearly": 12}
INTERVALS = (*INTERVAL_DAYS, *INTERVAL_MONTHS)


def shift(anchor: datetime, interval: str, units: int) -> datetime:
    """`anchor` moved by `units` intervals (units = period index × interval_count).

    Months keep the anchor's day, clamped to the last day of the target month: Jan 31 + 1 month is
    Feb 28 (Feb 29 in a leap year), Jan 31 + 2 months is Mar 31; Feb 29 2028 + 1 year is Feb 28 2029.
    """
    if anchor.tzinfo is None:
        raise ValueError("anchor must be an aware datetime")
    if interval in INTERVAL_DAYS:
        return anchor + timedelta(days=INTERVAL_DAYS[interval] * units)
    if interval in INTERVAL_MONTHS:
        return _add_months(anchor, INTERVAL_MONTHS[interval] * units)
    raise ValueError(f"unknown interval: {interval!r}")


def period_bounds(
    anchor: datetime, interval: str, interval_count: int, index: int
) -> tuple[datetime, datetime]:
    """Start and end of period `index` (0-based): the end of one period is the start of the next."""
    _check_count(interval_count)
    if index < 0:
        raise ValueError("period index must not be negative")
    return (
        shift(anchor, interval, index * interval_count),
        shift(anchor, interval, (index + 1) * interval_count),
    )


def period_at(
    anchor: datetime, interval: str, interval_count: int, at: datetime
) -> tuple[int, datetime, datetime]:
    """The period holding `at` (start ≤ at < end) as (index, start, end); `at` on a bound starts a period."""
    _check_count(interval_count)
    if at < anchor:
        raise ValueError("at is before the billing anchor")
    index = _estimate_index(anchor, interval, interval_count, at)
    start, end = period_bounds(anchor, interval, interval_count, index)
    # The estimate is off by at most one either way (month clamping, time of day); walk to the right one.
    while at < start:
        index -= 1
        start, end = period_bounds(anchor, interval, interval_count, index)
    while at >= end:
        index += 1
        start, end = period_bounds(anchor, interval, interval_count, index)
    return index, start, end


def _estimate_index(anchor: datetime, interval: str, interval_count: int, at: datetime) -> int:
    if interval in INTERVAL_DAYS:
        span = timedelta(days=INTERVAL_DAYS[interval] * interval_count)
        return (at - anchor) // span
    if interval in INTERVAL_MONTHS:
        months = (at.year - anchor.year) * 12 + (at.month - anchor.month)
        return max(0, months // (INTERVAL_MONTHS[interval] * interval_count))
    raise ValueError(f"unknown interval: {interval!r}")


def _add_months(moment: datetime, months: int) -> datetime:
    year, month_index = divmod(moment.year * 12 + (moment.month - 1) + months, 12)
    day = min(moment.day, calendar.monthrange(year, month_index + 1)[1])
    return moment.replace(year=year, month=month_index + 1, day=day)


def _check_count(interval_count: int) -> None:
    if interval_count < 1:
        raise ValueError("interval_count must be at least 1")
