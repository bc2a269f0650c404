"""The sandbox clock advance limit (DESIGN §10.5): two intervals of the shortest live price, else 2 years."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_server.billing.domain.clock_limit import advance_limit
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.sandbox_clock import check_advance_within

NOW = datetime(2027, 1, 31, 12, 0, tzinfo=UTC)


def unix(moment: datetime) -> int:
    return int(moment.timestamp())


def test_no_live_subscription_allows_two_years() -> None:
    limit = advance_limit(NOW, [])
    assert limit.latest == NOW + timedelta(days=730)
    assert "2 years" in limit.reason


def test_a_daily_price_allows_two_days() -> None:
    assert advance_limit(NOW, [("daily", 1)]).latest == NOW + timedelta(days=2)


def test_the_shortest_price_wins() -> None:
    limit = advance_limit(NOW, [("monthly", 1), ("weekly", 1), ("yearly", 1)])
    assert limit.latest == NOW + timedelta(weeks=2)
    assert "(weekly)" in limit.reason


def test_months_use_anchored_arithmetic() -> None:
    # Jan 31 + 2 months is Mar 31 (not Mar 28 or Apr 2).
    assert advance_limit(NOW, [("monthly", 1)]).latest == datetime(2027, 3, 31, 12, 0, tzinfo=UTC)


def test_an_interval_count_multiplies_the_interval() -> None:
    limit = advance_limit(NOW, [("weekly", 3), ("daily", 10)])
    assert limit.latest == NOW + timedelta(days=20)
    assert "every 10 days" in limit.reason


def test_an_advance_to_the_limit_is_allowed() -> None:
    check_advance_within(unix(NOW + timedelta(days=2)), advance_limit(NOW, [("daily", 1)]))


def test_an_advance_past_the_limit_is_refused_naming_it() -> None:
    limit = advance_limit(NOW, [("daily", 1)])
    with pytest.raises(ParameterInvalid) as refused:
        check_advance_within(unix(NOW + timedelta(days=2)) + 1, limit)
    assert refused.value.param == "to"
    assert "2 intervals of its shortest price (daily)" in refused.value.message
    assert f"to ≤ {unix(NOW + timedelta(days=2))}" in refused.value.message


def test_a_clock_without_subscriptions_cannot_jump_to_year_9999() -> None:
    with pytest.raises(ParameterInvalid):
        check_advance_within(253_402_300_799, advance_limit(NOW, []))
