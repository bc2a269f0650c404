"""Proration to the second (DESIGN §9): round_half_up(unit × |delta| × remaining / total), signed.

Every expected value is worked out by hand in the comment beside it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from core_server.billing.domain.periods import period_bounds
from core_server.billing.domain.proration import format_exact, prorate, round_fraction_half_up


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# April 2026: 30 days = 30 × 86 400 = 2 592 000 s
APR = (utc(2026, 4, 1), utc(2026, 5, 1))
APR_SECONDS = 2_592_000


@pytest.mark.parametrize(
    ("unit", "delta", "at", "remaining", "amount", "unrounded"),
    [
        # add +1 at Apr 16: 15 days = 1 296 000 s left; 1500 × 15/30 = 750
        (1500, 1, utc(2026, 4, 16), 1_296_000, 750, "750"),
        # increase +2 at Apr 21: 10 days = 864 000 s; 1000 × 2 × 10/30 = 666.666… → 667
        (1000, 2, utc(2026, 4, 21), 864_000, 667, "666.666667"),
        # decrease −1 at Apr 11: 20 days = 1 728 000 s; 1000 × 20/30 = 666.666… → credit −667
        (1000, -1, utc(2026, 4, 11), 1_728_000, -667, "-666.666667"),
        # remove now (quantity 3 → 0) at Apr 25 12:00: 5.5 days = 475 200 s = 11/60 of the period;
        # 500 × 3 × 11/60 = 275 → credit −275
        (500, -3, utc(2026, 4, 25, 12), 475_200, -275, "-275"),
        # remove at period end: at == end, 0 s left → 0
        (500, -2, utc(2026, 5, 1), 0, 0, "0"),
        # first second: at == start, the whole period left → the full 1234
        (1234, 1, utc(2026, 4, 1), APR_SECONDS, 1234, "1234"),
        # last second: 1 s left; 1000 × 1/2 592 000 = 0.000385802… → 0 (6 decimals: 0.000386)
        (1000, 1, utc(2026, 4, 30, 23, 59, 59), 1, 0, "0.000386"),
        # last second of a large price: 99 999 999 / 2 592 000 = 38.580246… (38 × 2 592 000 = 98 496 000,
        # rest 1 503 999 / 2 592 000 = 0.5802465…) → 39
        (99_999_999, 1, utc(2026, 4, 30, 23, 59, 59), 1, 39, "38.580247"),
        # JPY (zero-decimal, same integer math): ¥980 at Apr 21, 10/30 left: 980/3 = 326.666… → ¥327
        (980, 1, utc(2026, 4, 21), 864_000, 327, "326.666667"),
    ],
)
def test_proration_in_a_30_day_month(
    unit: int, delta: int, at: datetime, remaining: int, amount: int, unrounded: str
) -> None:
    result = prorate(unit, delta, *APR, at)
    assert result.amount_cents == amount
    assert result.inputs.seconds_remaining == remaining
    assert result.inputs.seconds_total == APR_SECONDS
    assert result.inputs.unit_amount_cents == unit
    assert result.inputs.quantity_delta == delta
    assert result.inputs.unrounded == unrounded


def test_leap_day_monthly_period_has_29_days() -> None:
    # Feb 2028: 29 days = 2 505 600 s; on Feb 29 one day (86 400 s) is left: 2900 × 1/29 = 100
    result = prorate(2900, 1, utc(2028, 2, 1), utc(2028, 3, 1), utc(2028, 2, 29))
    assert (result.amount_cents, result.inputs.seconds_total, result.inputs.seconds_remaining) == (
        100,
        2_505_600,
        86_400,
    )


def test_month_end_anchor_period_through_the_leap_day() -> None:
    # anchor Jan 31 2028: period 0 = [Jan 31, Feb 29] = 29 days; at Feb 15 14 days left: 2900 × 14/29 = 1400
    start, end = period_bounds(utc(2028, 1, 31), "monthly", 1, 0)
    result = prorate(2900, 1, start, end, utc(2028, 2, 15))
    assert (result.amount_cents, result.inputs.seconds_total) == (1400, 2_505_600)


def test_yearly_period_of_a_leap_year() -> None:
    # 2028 has 366 days = 31 622 400 s; Jul 1 → Jan 1 is 31+31+30+31+30+31 = 184 days.
    # 12000 × 184/366 = 2 208 000/366 = 6032 rest 288 → 6032.786885… → 6033
    result = prorate(12_000, 1, utc(2028, 1, 1), utc(2029, 1, 1), utc(2028, 7, 1))
    assert result.amount_cents == 6033
    assert result.inputs.seconds_total == 31_622_400
    assert result.inputs.seconds_remaining == 184 * 86_400
    assert result.inputs.unrounded == "6032.786885"


def test_weekly_period_half_way_rounds_half_up() -> None:
    # 7 days = 604 800 s; Thursday 12:00 leaves 3.5 days = 302 400 s = 1/2: 999 / 2 = 499.5 → 500
    result = prorate(999, 1, utc(2026, 3, 2), utc(2026, 3, 9), utc(2026, 3, 5, 12))
    assert (result.amount_cents, result.inputs.unrounded) == (500, "499.5")
    assert (result.inputs.seconds_remaining, result.inputs.seconds_total) == (302_400, 604_800)


@pytest.mark.parametrize(("delta", "amount", "unrounded"), [(1, 63, "62.5"), (-1, -63, "-62.5")])
def test_daily_period_credit_mirrors_the_charge(delta: int, amount: int, unrounded: str) -> None:
    # 1 day = 86 400 s; at 18:00 6 h = 21 600 s = 1/4 are left: 250 / 4 = 62.5 → 63 (credit −63)
    result = prorate(250, delta, utc(2026, 3, 2), utc(2026, 3, 3), utc(2026, 3, 2, 18))
    assert (result.amount_cents, result.inputs.unrounded) == (amount, unrounded)


def test_interval_count_of_3_months() -> None:
    # anchor Jan 1 2026, 3 months: [Jan 1, Apr 1) = 31+28+31 = 90 days; Mar 2 → Apr 1 = 30 days left:
    # 9000 × 30/90 = 3000
    start, end = period_bounds(utc(2026, 1, 1), "monthly", 3, 0)
    result = prorate(9000, 1, start, end, utc(2026, 3, 2))
    assert result.amount_cents == 3000
    assert (result.inputs.seconds_remaining, result.inputs.seconds_total) == (30 * 86_400, 90 * 86_400)


@pytest.mark.parametrize(("delta", "amount", "unrounded"), [(1, 1, "0.5"), (-1, -1, "-0.5")])
def test_exactly_half_a_cent_rounds_half_up(delta: int, amount: int, unrounded: str) -> None:
    # 1 cent × (302 400 / 604 800) = 1/2 → 1 (Python's round would give 0)
    result = prorate(1, delta, utc(2026, 3, 2), utc(2026, 3, 9), utc(2026, 3, 5, 12))
    assert (result.amount_cents, result.inputs.unrounded) == (amount, unrounded)


def test_at_is_truncated_to_the_whole_second() -> None:
    # Apr 15 23:59:59.999999 → 23:59:59: 15 days + 1 s = 1 296 001 s left
    at = utc(2026, 4, 16) - timedelta(microseconds=1)
    result = prorate(2_592_000, 1, *APR, at)
    # 2 592 000 × 1 296 001 / 2 592 000 = 1 296 001 exactly
    assert (result.inputs.seconds_remaining, result.amount_cents) == (1_296_001, 1_296_001)


@pytest.mark.parametrize(
    "at", [utc(2026, 3, 31, 23, 59, 59), utc(2026, 5, 1) + timedelta(microseconds=1), utc(2026, 6, 1)]
)
def test_a_change_outside_the_period_is_refused(at: datetime) -> None:
    with pytest.raises(ValueError, match="outside the period"):
        prorate(1000, 1, *APR, at)


def test_an_empty_period_or_negative_price_is_refused() -> None:
    with pytest.raises(ValueError):
        prorate(1000, 1, utc(2026, 4, 1), utc(2026, 4, 1), utc(2026, 4, 1))
    with pytest.raises(ValueError):
        prorate(-1, 1, *APR, utc(2026, 4, 2))


def test_inputs_as_dict_holds_exactly_the_formula_inputs() -> None:
    inputs = prorate(1000, -1, *APR, utc(2026, 4, 11)).inputs
    assert inputs.as_dict() == {
        "seconds_remaining": 1_728_000,
        "seconds_total": APR_SECONDS,
        "unit_amount_cents": 1000,
        "quantity_delta": -1,
        "unrounded": "-666.666667",
    }


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(500), "500"),
        (Fraction(25, 2), "12.5"),
        (Fraction(-25, 2), "-12.5"),
        (Fraction(1000, 3), "333.333333"),
        (Fraction(2000, 3), "666.666667"),
        (Fraction(1, 128), "0.007813"),  # 0.0078125 terminates at 7 decimals → half-up to 6
        (Fraction(1, 10**7), "0"),  # 0.0000001 → 0.000000
        (Fraction(0), "0"),
    ],
)
def test_format_exact(value: Fraction, text: str) -> None:
    assert format_exact(value) == text


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (Fraction(1, 2), 1),
        (Fraction(3, 2), 2),
        (Fraction(5, 2), 3),
        (Fraction(-1, 2), -1),
        (Fraction(49, 100), 0),
    ],
)
def test_round_fraction_half_up(value: Fraction, rounded: int) -> None:
    assert round_fraction_half_up(value) == rounded
