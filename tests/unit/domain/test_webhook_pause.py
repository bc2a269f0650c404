"""The endpoint pause rule of DESIGN §10.9 (webhook_pause.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.webhooks.domain.webhook_pause import (
    FIRST_PAUSE,
    MAX_PAUSE,
    PAUSE_AFTER_TIMEOUTS,
    EndpointPause,
    on_probation,
    pause_for,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_pause_starts_at_the_threshold_doubles_and_is_capped() -> None:
    assert [pause_for(n) for n in range(PAUSE_AFTER_TIMEOUTS)] == [timedelta(0)] * PAUSE_AFTER_TIMEOUTS
    assert pause_for(PAUSE_AFTER_TIMEOUTS) == FIRST_PAUSE
    assert pause_for(PAUSE_AFTER_TIMEOUTS + 1) == FIRST_PAUSE * 2
    assert pause_for(PAUSE_AFTER_TIMEOUTS + 3) == FIRST_PAUSE * 8
    assert pause_for(10_000) == MAX_PAUSE


def test_time_outs_in_a_row_pause_the_endpoint() -> None:
    pause = EndpointPause()
    for n in range(1, PAUSE_AFTER_TIMEOUTS):
        pause = pause.after_attempt(False, True, NOW)
        assert pause == EndpointPause(n, None)
    pause = pause.after_attempt(False, True, NOW)
    assert pause == EndpointPause(PAUSE_AFTER_TIMEOUTS, NOW + FIRST_PAUSE)
    assert on_probation(pause.consecutive_timeouts)


def test_a_success_resets_and_an_answered_failure_lifts_the_pause_but_keeps_the_count() -> None:
    paused = EndpointPause(PAUSE_AFTER_TIMEOUTS + 1, NOW + FIRST_PAUSE)
    assert paused.after_attempt(True, False, NOW) == EndpointPause()
    assert paused.after_attempt(False, False, NOW) == EndpointPause(PAUSE_AFTER_TIMEOUTS + 1, None)
    longer = EndpointPause(PAUSE_AFTER_TIMEOUTS + 2, NOW + FIRST_PAUSE * 4)
    assert paused.after_attempt(False, True, NOW) == longer
