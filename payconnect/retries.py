"""When a request is retried and how long to wait: pure rules, unit-tested without a network.

A retry reuses the request's Idempotency-Key (generated once per call), so a POST the server already
ran answers its stored result instead of running again. Retried: transport failures (no answer), 409
"still being processed" (the same key is running elsewhere), 429 (after Retry-After), and 5xx. Never
retried: other 4xx answers, which say the request itself is wrong.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["IN_FLIGHT_MARKER", "RetryPolicy"]

IN_FLIGHT_MARKER = "still being processed"
"""In the message of the 409 the API answers while a request with the same key is running."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential back-off with full jitter: attempt n waits up to `base * 2**(n-1)` seconds, capped."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    """A longer Retry-After is not waited out: the error is raised instead."""

    def retryable(self, status: int | None, error_message: str | None = None) -> bool:
        """`status` None: no HTTP answer arrived (a transport error)."""
        if status is None:
            return True
        if status == 409:
            return IN_FLIGHT_MARKER in (error_message or "")
        return status == 429 or status >= 500

    def delay(
        self,
        retry: int,
        retry_after: str | None = None,
        rand: Callable[[], float] = random.random,
    ) -> float | None:
        """Seconds before retry number `retry` (1-based); None when no retry is left or the server asks
        for a longer wait than max_retry_after."""
        if retry > self.max_retries:
            return None
        backoff = float(min(self.max_delay, self.base_delay * 2 ** (retry - 1)) * rand())
        server = _seconds(retry_after)
        if server is None:
            return backoff
        if server > self.max_retry_after:
            return None
        return max(server, backoff)


def _seconds(header: str | None) -> float | None:
    if not header:
        return None
    try:
        value = float(header)
    except ValueError:
        return None
    return value if value >= 0 else None
