"""The login throttle's schedule (core_server/merchants/domain/login_throttle.py): five free failures,
then 1 s, 2 s, 4 s ... capped at 15 min; a success (an empty record) starts again from zero."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.merchants.domain.login_throttle import (
    FORGET_AFTER,
    MAX_DELAY,
    NO_FAILURES,
    LoginRecord,
    account_key,
    after_attempt,
    backoff,
    forget_after,
    wait_before_attempt,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_backoff_is_zero_for_five_failures_then_doubles_from_one_second() -> None:
    assert [backoff(n) for n in range(5)] == [timedelta(0)] * 5
    assert [backoff(n).total_seconds() for n in range(5, 10)] == [1, 2, 4, 8, 16]


def test_backoff_is_capped_at_fifteen_minutes_even_for_huge_counts() -> None:
    assert backoff(14) == timedelta(seconds=512)
    assert backoff(15) == MAX_DELAY == timedelta(minutes=15)
    assert backoff(10_000) == MAX_DELAY


def test_five_failures_pass_at_once_and_the_sixth_waits_one_second() -> None:
    record = NO_FAILURES
    for _ in range(5):
        assert wait_before_attempt(record, T0) == timedelta(0)
        record = after_attempt(record, T0)
    assert record == LoginRecord(failures=5, last_failure=T0)
    assert wait_before_attempt(record, T0) == timedelta(seconds=1)
    assert wait_before_attempt(record, T0 + timedelta(milliseconds=400)) == timedelta(milliseconds=600)
    assert wait_before_attempt(record, T0 + timedelta(seconds=1)) == timedelta(0)


def test_each_failure_after_the_wait_doubles_the_next_wait() -> None:
    record = LoginRecord(failures=5, last_failure=T0)
    now = T0 + timedelta(seconds=1)
    record = after_attempt(record, now)  # the sixth, allowed after its 1 s, failed too
    assert wait_before_attempt(record, now) == timedelta(seconds=2)
    now += timedelta(seconds=2)
    record = after_attempt(record, now)
    assert wait_before_attempt(record, now) == timedelta(seconds=4)


def test_a_success_resets_to_no_failures() -> None:
    # The application deletes the record on success; an absent record never waits.
    assert wait_before_attempt(NO_FAILURES, T0) == timedelta(0)
    assert after_attempt(NO_FAILURES, T0).failures == 1


def test_records_outlive_their_back_off() -> None:
    assert forget_after(LoginRecord(failures=1, last_failure=T0)) == FORGET_AFTER
    assert forget_after(LoginRecord(failures=20, last_failure=T0)) == MAX_DELAY + FORGET_AFTER


def test_the_key_ignores_case_and_blanks_and_holds_no_address() -> None:
    key = account_key("Alice@Example.com")
    assert key == account_key("  alice@example.COM ")
    assert key != account_key("bob@example.com")
    assert "alice" not in key


def test_an_address_counts_by_itself_and_ipv6_by_its_64() -> None:
    from core_server.merchants.domain.login_throttle import address_group, address_key

    assert address_group(" 203.0.113.7 ") == "203.0.113.7"
    assert address_group("::ffff:203.0.113.7") == "203.0.113.7"
    assert (
        address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    )
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_key("Owner@Example.com", "203.0.113.7") == address_key("owner@example.com ", "203.0.113.7")
    assert address_key("owner@example.com", "203.0.113.7") != address_key("owner@example.com", "203.0.113.8")
    # No typed e-mail reaches another pair's key or the account's own record.
    assert address_key("owner@example.com", "203.0.113.7") != account_key("owner@example.com")
    assert address_key("a\nb", "c") != address_key("a", "b\nc")
