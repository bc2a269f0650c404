"""Anchored billing periods (DESIGN §9): every bound from the anchor, months clamped, never drifting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_server.billing.domain.periods import period_at, period_bounds, shift


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def test_month_end_anchor_clamps_each_month_in_a_leap_year_and_recovers_day_31() -> None:
    anchor = utc(2028, 1, 31, 10, 30, 15)
    starts = [period_bounds(anchor, "monthly", 1, n)[0] for n in range(14)]
    # 2028 is a leap year: Jan 31 → Feb 29 (clamped) → Mar 31 (the anchor's day again) → Apr 30 → …
    assert [(s.year, s.month, s.day) for s in starts] == [
        (2028, 1, 31),
        (2028, 2, 29),
        (2028, 3, 31),
        (2028, 4, 30),
        (2028, 5, 31),
        (2028, 6, 30),
        (2028, 7, 31),
        (2028, 8, 31),
        (2028, 9, 30),
        (2028, 10, 31),
        (2028, 11, 30),
        (2028, 12, 31),
        (2029, 1, 31),
        (2029, 2, 28),  # 2029 is not a leap year
    ]
    assert all((s.hour, s.minute, s.second) == (10, 30, 15) for s in starts)


def test_month_end_anchor_in_a_non_leap_year_gives_feb_28_then_mar_31() -> None:
    anchor = utc(2027, 1, 31)
    assert period_bounds(anchor, "monthly", 1, 0) == (utc(2027, 1, 31), utc(2027, 2, 28))
    assert period_bounds(anchor, "monthly", 1, 1) == (utc(2027, 2, 28), utc(2027, 3, 31))


def test_yearly_from_a_leap_day_clamps_to_feb_28_and_returns_to_feb_29_in_leap_years() -> None:
    anchor = utc(2028, 2, 29, 8)
    ends = [period_bounds(anchor, "yearly", 1, n)[1] for n in range(4)]
    # 2028+1, +2, +3 have no Feb 29; 2032 does.
    assert ends == [utc(2029, 2, 28, 8), utc(2030, 2, 28, 8), utc(2031, 2, 28, 8), utc(2032, 2, 29, 8)]


def test_no_drift_after_24_periods_where_chaining_from_the_previous_end_would_drift() -> None:
    anchor = utc(2027, 1, 31, 10, 30, 15)
    bounds = [period_bounds(anchor, "monthly", 1, n) for n in range(25)]
    for (_, end), (next_start, _) in zip(bounds, bounds[1:], strict=False):
        assert end == next_start
    # Period 24 starts 24 months after the anchor: Jan 31 2029, not the Jan 28 a chained Feb 28 would give.
    assert bounds[24][0] == utc(2029, 1, 31, 10, 30, 15)
    chained = anchor
    for _ in range(24):
        chained = shift(chained, "monthly", 1)
    assert chained == utc(2029, 1, 28, 10, 30, 15)  # the drift the anchored rule avoids


def test_weekly_with_count_2_is_14_days_per_period() -> None:
    anchor = utc(2026, 3, 2, 9)  # a Monday
    # period 3 = anchor + 3×14 = 42 days (Mar 2 + 29 → Mar 31, + 13 → Apr 13) to + 56 days (Apr 27)
    assert period_bounds(anchor, "weekly", 2, 3) == (utc(2026, 4, 13, 9), utc(2026, 4, 27, 9))


def test_daily_with_count_2_crosses_the_leap_day() -> None:
    anchor = utc(2028, 2, 27, 12)
    # period 1 = anchor + 2 days (Feb 29, 2028 is a leap year) to + 4 days (Mar 2)
    assert period_bounds(anchor, "daily", 2, 1) == (utc(2028, 2, 29, 12), utc(2028, 3, 2, 12))


def test_interval_count_3_months_clamps_from_the_anchor_each_time() -> None:
    anchor = utc(2026, 11, 30)
    # +3 months → Feb 30 clamps to Feb 28 2027; +6 → May 30 (not May 28); +9 → Aug 30
    assert period_bounds(anchor, "monthly", 3, 0) == (utc(2026, 11, 30), utc(2027, 2, 28))
    assert period_bounds(anchor, "monthly", 3, 1) == (utc(2027, 2, 28), utc(2027, 5, 30))
    assert period_bounds(anchor, "monthly", 3, 2) == (utc(2027, 5, 30), utc(2027, 8, 30))


def test_period_at_an_exact_boundary_is_the_period_that_starts_there() -> None:
    anchor = utc(2027, 1, 31, 10, 30, 15)
    assert period_at(anchor, "monthly", 1, anchor) == (0, anchor, utc(2027, 2, 28, 10, 30, 15))
    boundary = utc(2027, 2, 28, 10, 30, 15)
    assert period_at(anchor, "monthly", 1, boundary) == (1, boundary, utc(2027, 3, 31, 10, 30, 15))
    before = boundary - timedelta(seconds=1)
    assert period_at(anchor, "monthly", 1, before) == (0, anchor, boundary)


def test_period_at_honours_the_time_of_day_of_the_anchor() -> None:
    anchor = utc(2027, 1, 31, 10, 30, 15)
    # Feb 28 00:00 is in month 1 of the calendar but still before period 0's end (Feb 28 10:30:15).
    index, start, end = period_at(anchor, "monthly", 1, utc(2027, 2, 28))
    assert (index, start, end) == (0, anchor, utc(2027, 2, 28, 10, 30, 15))


def test_period_at_far_from_the_anchor() -> None:
    anchor = utc(2027, 1, 31, 10, 30, 15)
    # period 24 = [Jan 31 2029, Feb 28 2029), period 25 starts Feb 28 2029 10:30:15
    assert period_at(anchor, "monthly", 1, utc(2029, 2, 28, 10, 30, 14))[0] == 24
    assert period_at(anchor, "monthly", 1, utc(2029, 2, 28, 10, 30, 15))[0] == 25
    # yearly from Feb 29 2028: period 4 starts Feb 29 2032
    leap = utc(2028, 2, 29)
    assert period_at(leap, "yearly", 1, utc(2032, 2, 29))[0] == 4
    assert period_at(leap, "yearly", 1, utc(2032, 2, 28, 23, 59, 59))[:2] == (3, utc(2031, 2, 28))
    # weekly ×2 from Mon Mar 2 09:00: Apr 13 09:00 is anchor + 42 days → period 3
    assert period_at(utc(2026, 3, 2, 9), "weekly", 2, utc(2026, 4, 13, 9))[0] == 3
    assert period_at(utc(2026, 3, 2, 9), "weekly", 2, utc(2026, 4, 13, 8, 59, 59))[0] == 2


def test_period_at_before_the_anchor_is_refused() -> None:
    with pytest.raises(ValueError, match="before the billing anchor"):
        period_at(utc(2026, 3, 2), "daily", 1, utc(2026, 3, 1, 23, 59, 59))


@pytest.mark.parametrize(
    ("interval", "count", "anchor"),
    [
        ("fortnightly", 1, utc(2026, 1, 1)),
        ("monthly", 0, utc(2026, 1, 1)),
        ("monthly", 1, datetime(2026, 1, 1)),
    ],
)
def test_bad_interval_count_or_naive_anchor_is_refused(interval: str, count: int, anchor: datetime) -> None:
    with pytest.raises(ValueError):
        period_bounds(anchor, interval, count, 0)


def test_negative_period_index_is_refused() -> None:
    with pytest.raises(ValueError):
        period_bounds(utc(2026, 1, 1), "monthly", 1, -1)
