"""Retries at 1 min, 5 min, 30 min, 2 h, 24 h; failing after 5 consecutive failures; success restores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus as Status
from core_server.webhooks.domain.webhook_schedule import (
    FAILING_THRESHOLD,
    MAX_ATTEMPTS,
    EndpointHealth,
    is_success,
    next_attempt_after_failure,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("attempts_made", "delay"),
    [
        (1, timedelta(minutes=1)),
        (2, timedelta(minutes=5)),
        (3, timedelta(minutes=30)),
        (4, timedelta(hours=2)),
        (5, timedelta(hours=24)),
    ],
)
def test_retry_delays_follow_the_spec_table(attempts_made: int, delay: timedelta) -> None:
    assert next_attempt_after_failure(attempts_made, NOW) == NOW + delay


def test_after_the_fifth_retry_fails_the_delivery_gives_up() -> None:
    assert MAX_ATTEMPTS == 6
    assert next_attempt_after_failure(6, NOW) is None


def test_attempt_counts_start_at_one() -> None:
    with pytest.raises(ValueError):
        next_attempt_after_failure(0, NOW)


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        (200, True),
        (204, True),
        (299, True),
        (None, False),
        (199, False),
        (301, False),
        (302, False),
        (400, False),
        (500, False),
    ],
)
def test_only_2xx_succeeds_and_redirects_fail(code: int | None, ok: bool) -> None:
    assert is_success(code) is ok


def test_five_consecutive_failures_make_an_enabled_endpoint_failing() -> None:
    health = EndpointHealth(Status.ENABLED, 0)
    for n in range(1, FAILING_THRESHOLD):
        health = health.after_attempt(False)
        assert health == EndpointHealth(Status.ENABLED, n)
    health = health.after_attempt(False)
    assert health == EndpointHealth(Status.FAILING, 5)
    assert health.after_attempt(False) == EndpointHealth(Status.FAILING, 6)


def test_a_success_restores_enabled_and_restarts_the_count() -> None:
    assert EndpointHealth(Status.FAILING, 9).after_attempt(True) == EndpointHealth(Status.ENABLED, 0)
    assert EndpointHealth(Status.ENABLED, 3).after_attempt(True) == EndpointHealth(Status.ENABLED, 0)


def test_a_disabled_endpoint_stays_disabled_whatever_a_late_attempt_reports() -> None:
    assert EndpointHealth(Status.DISABLED, 4).after_attempt(False).status is Status.DISABLED
    assert EndpointHealth(Status.DISABLED, 4).after_attempt(True).status is Status.DISABLED
    assert not Status.DISABLED.receives and Status.FAILING.receives
