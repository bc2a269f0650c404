"""Endpoint pause: an endpoint that keeps timing out is paused with back-off (DESIGN §10.9).

Why: a receiver that never answers holds a delivery slot for the whole time-out (10 s) on every
attempt. Slots are shared fairly across merchants, but a merchant with many silent endpoints would
still keep slots busy for nothing. So after PAUSE_AFTER_TIMEOUTS attempts in a row that got no answer
within the time-out, the endpoint's deliveries are deferred: no dispatcher claims them before
`paused_until` (real time). The pause starts at FIRST_PAUSE and doubles with each further time-out,
up to MAX_PAUSE. When it ends, the endpoint is on probation: one delivery at a time goes out as a
probe (no claim takes another of its deliveries while one is leased).
A success ends probation and resets the count; an answered failure (a 500, a refused connection —
fast, holding no slot) lifts the pause for the next probe but does not reset the count.

Deliveries are only deferred, never dropped: their attempt count and retry schedule do not move while
the endpoint is paused. The endpoint's `status` (`failing` after 5 consecutive failures, DESIGN §7)
is a separate rule and unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

PAUSE_AFTER_TIMEOUTS = 3
FIRST_PAUSE = timedelta(seconds=30)
MAX_PAUSE = timedelta(hours=1)


def pause_for(timeouts: int) -> timedelta:
    """The pause after the `timeouts`-th consecutive time-out: none below the threshold, then 30 s,
    60 s, 120 s, ... capped at MAX_PAUSE."""
    if timeouts < PAUSE_AFTER_TIMEOUTS:
        return timedelta(0)
    doublings = timeouts - PAUSE_AFTER_TIMEOUTS
    if doublings >= 20:  # far past the cap; stop doubling so a huge count cannot overflow
        return MAX_PAUSE
    pause: timedelta = FIRST_PAUSE * (2**doublings)
    return min(pause, MAX_PAUSE)


def on_probation(timeouts: int) -> bool:
    """An endpoint past the threshold gets one delivery at a time (a probe) once its pause ends."""
    return timeouts >= PAUSE_AFTER_TIMEOUTS


@dataclass(frozen=True, slots=True)
class EndpointPause:
    """An endpoint's consecutive time-outs and, when paused, until when (real time)."""

    consecutive_timeouts: int = 0
    paused_until: datetime | None = None

    def after_attempt(self, succeeded: bool, timed_out: bool, now: datetime) -> EndpointPause:
        if succeeded:
            return EndpointPause()
        if not timed_out:
            # The receiver answered (or refused at once): it held no slot. The count stays, so the next
            # attempt is still a lone probe, but nothing waits for a pause.
            return EndpointPause(self.consecutive_timeouts, None)
        timeouts = self.consecutive_timeouts + 1
        pause = pause_for(timeouts)
        return EndpointPause(timeouts, now + pause if pause else None)
