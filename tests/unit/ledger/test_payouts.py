"""Payout rules (DESIGN §9): schedule days, minimums per currency, the rows a payout settles, arrival."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.ledger.application.payout_view import payout_view
from core_server.ledger.domain.payout import (
    FAILING_ACCOUNT,
    MINIMUMS,
    PayoutStatus,
    Settleable,
    arrive,
    parse_status,
    plan_payout,
    reaches_minimum,
    schedule_day,
)
from core_server.merchants.domain.merchant import validate_profile_field

WEDNESDAY = date(2026, 11, 25)


@pytest.mark.parametrize(
    ("schedule", "today", "day"),
    [
        ("daily", WEDNESDAY, WEDNESDAY),
        ("weekly", WEDNESDAY, date(2026, 11, 23)),  # that week's Monday
        ("weekly", date(2026, 11, 23), date(2026, 11, 23)),
        ("weekly", date(2026, 11, 22), date(2026, 11, 16)),  # a Sunday: the Monday before
        ("monthly", WEDNESDAY, date(2026, 11, 1)),
        ("monthly", date(2026, 12, 1), date(2026, 12, 1)),
        ("", WEDNESDAY, WEDNESDAY),  # unknown: the profile's default, daily
    ],
)
def test_a_payout_is_for_the_latest_schedule_day(schedule: str, today: date, day: date) -> None:
    assert schedule_day(schedule, today) == day


@pytest.mark.parametrize(
    ("currency", "minimum"),
    [("usd", 2500), ("eur", 2500), ("chf", 2500), ("gbp", 2000), ("cad", 3500), ("aud", 4000), ("jpy", 3500)],
)
def test_each_currency_pays_out_from_its_minimum(currency: str, minimum: int) -> None:
    assert MINIMUMS[currency] == minimum
    assert reaches_minimum(minimum, currency)
    assert not reaches_minimum(minimum - 1, currency)


def test_an_unknown_currency_is_never_paid_out() -> None:
    assert not reaches_minimum(10**9, "xyz")


def row(txn_id: str, net: int, available: datetime) -> Settleable:
    return Settleable(txn_id, net, available)


def test_a_payout_settles_the_rows_available_at_its_midnight_refunds_included() -> None:
    midnight = datetime(2026, 11, 25, tzinfo=UTC)
    rows = [
        row("txn_a", 9_680, midnight - timedelta(hours=12)),
        row("txn_refund", -1_000, midnight - timedelta(hours=1)),
        row("txn_b", 4_825, midnight),  # available exactly at midnight: in
        row("txn_late", 5_000, midnight + timedelta(seconds=1)),  # not yet
    ]
    plan = plan_payout("po_x", "acct_1", False, "usd", WEDNESDAY, rows)
    assert plan is not None
    assert plan.transaction_ids == ("txn_a", "txn_refund", "txn_b")
    assert plan.payout.amount == 13_505
    assert plan.payout.balance_row_amount == -13_505
    assert plan.payout.created == midnight
    assert plan.payout.arrival_date == midnight + timedelta(days=1)
    assert plan.payout.status is PayoutStatus.PENDING
    assert (plan.event.type, plan.event.object_id, plan.event.occurred_at) == (
        "payout.created",
        "po_x",
        midnight,
    )


def test_below_the_minimum_there_is_no_payout() -> None:
    midnight = datetime(2026, 11, 25, tzinfo=UTC)
    rows = [row("txn_a", 3_000, midnight), row("txn_refund", -600, midnight)]
    assert plan_payout("po_x", "acct_1", False, "usd", WEDNESDAY, rows) is None
    assert plan_payout("po_x", "acct_1", False, "gbp", WEDNESDAY, rows) is not None


def test_arrival_pays_or_fails_for_the_failing_test_account() -> None:
    midnight = datetime(2026, 11, 25, tzinfo=UTC)
    plan = plan_payout("po_x", "acct_1", True, "eur", WEDNESDAY, [row("txn_a", 5_000, midnight)])
    assert plan is not None
    paid, completed = arrive(plan.payout, "")
    assert (paid.status, paid.failure_code, completed.type) == (PayoutStatus.PAID, None, "payout.completed")
    failed, event = arrive(plan.payout, FAILING_ACCOUNT)
    assert (failed.status, failed.failure_code, event.type) == (
        PayoutStatus.FAILED,
        "account_closed",
        "payout.failed",
    )
    assert event.occurred_at == plan.payout.arrival_date


def test_the_payout_object() -> None:
    midnight = datetime(2026, 11, 25, tzinfo=UTC)
    plan = plan_payout("po_x", "acct_1", False, "jpy", WEDNESDAY, [row("txn_a", 3_500, midnight)])
    assert plan is not None
    assert payout_view(plan.payout) == {
        "id": "po_x",
        "object": "payout",
        "amount": 3_500,
        "currency": "jpy",
        "status": "pending",
        "arrival_date": int((midnight + timedelta(days=1)).timestamp()),
        "failure_code": None,
        "created": int(midnight.timestamp()),
        "livemode": False,
    }


def test_status_filter_values() -> None:
    assert parse_status("paid") is PayoutStatus.PAID
    assert parse_status("") is None
    assert parse_status("done") is None


@pytest.mark.parametrize("number", ["0001", FAILING_ACCOUNT, "1" * 17, ""])
def test_a_payout_account_is_4_to_17_digits_or_cleared(number: str) -> None:
    assert validate_profile_field("payout_account_number", number) == number


@pytest.mark.parametrize("number", ["123", "1" * 18, "12ab34", "0001 1111"])
def test_anything_else_is_not_a_payout_account(number: str) -> None:
    with pytest.raises(ParameterInvalid):
        validate_profile_field("payout_account_number", number)
