"""Delivery rules: what counts as success, when to retry, when to give up, when an endpoint is failing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus

DELIVERY_TIMEOUT_SECONDS = 10.0
"""DESIGN §7: a delivery succeeds on any 2xx answered within 10 s."""

RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=24),
)
"""Spec Events rule 4: the delay before retry n, counted from the failure before it."""

MAX_ATTEMPTS = 1 + len(RETRY_DELAYS)
"""The first attempt and five retries; after the sixth failure the delivery is `failed`."""

FAILING_THRESHOLD = 5
"""Spec Events rule 5: after 5 consecutive failed deliveries the endpoint is marked failing."""


def is_success(status_code: int | None) -> bool:
    """Any 2xx; redirects are failures because they are never followed (they could point anywhere)."""
    return status_code is not None and 200 <= status_code <= 299


def next_attempt_after_failure(attempts_made: int, failed_at: datetime) -> datetime | None:
    """When to try again after the `attempts_made`-th attempt failed; None once the schedule is spent."""
    if attempts_made < 1:
        raise ValueError("attempts_made counts the attempt that just failed, so it is at least 1")
    if attempts_made > len(RETRY_DELAYS):
        return None
    return failed_at + RETRY_DELAYS[attempts_made - 1]


@dataclass(frozen=True, slots=True)
class EndpointHealth:
    """An endpoint's status and its count of consecutive failed attempts (any event)."""

    status: WebhookEndpointStatus
    consecutive_failures: int

    def after_attempt(self, succeeded: bool) -> EndpointHealth:
        """DESIGN §7: `failing` after 5 consecutive failures, deliveries continue, a success restores
        `enabled`. A `disabled` endpoint stays disabled whatever an attempt still in flight reports."""
        if succeeded:
            restored = self.status is WebhookEndpointStatus.FAILING
            return EndpointHealth(WebhookEndpointStatus.ENABLED if restored else self.status, 0)
        failures = self.consecutive_failures + 1
        status = self.status
        if status is WebhookEndpointStatus.ENABLED and failures >= FAILING_THRESHOLD:
            status = WebhookEndpointStatus.FAILING
        return EndpointHealth(status, failures)
