"""Webhook deliveries (one per event and endpoint) and the attempts recorded for each."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class DeliveryStatus(enum.Enum):
    PENDING = "pending"
    """Waiting for its first attempt or a retry."""
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    """Every scheduled retry failed; only a resend tries again."""


@dataclass(frozen=True, slots=True)
class DeliveryAttempt:
    """One HTTP POST to the endpoint: when, what came back, how long it took, or why it failed."""

    attempted_at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None
    succeeded: bool


@dataclass(frozen=True, slots=True)
class WebhookDelivery:
    id: str
    endpoint_id: str
    event_id: str
    event_type: str
    status: DeliveryStatus
    attempt_count: int
    """Attempts since the delivery was (re)queued; the retry schedule counts these."""
    next_attempt_at: datetime | None
    created: datetime
    attempts: tuple[DeliveryAttempt, ...] = ()
    """Every attempt ever made, oldest first (resends included)."""
