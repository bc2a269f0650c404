"""Row mapping for webhook deliveries and their attempts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery

DELIVERY_SELECT = """
SELECT d.id, d.endpoint_id, d.event_id, e.type AS event_type, d.status, d.attempt_count, d.next_attempt_at,
       d.created_at, d.seq
FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
"""
ATTEMPTS_SELECT = "SELECT * FROM webhook_attempts WHERE delivery_id = ANY(%s) ORDER BY id"


def attempt_from_row(row: dict[str, Any]) -> DeliveryAttempt:
    return DeliveryAttempt(
        attempted_at=row["attempted_at"],
        status_code=row["status_code"],
        latency_ms=row["latency_ms"],
        error=row["error"],
        succeeded=row["succeeded"],
    )


def delivery_from_row(row: dict[str, Any], attempts: Sequence[DeliveryAttempt]) -> WebhookDelivery:
    status = DeliveryStatus(row["status"])
    return WebhookDelivery(
        id=row["id"],
        endpoint_id=row["endpoint_id"],
        event_id=row["event_id"],
        event_type=row["event_type"],
        status=status,
        attempt_count=row["attempt_count"],
        next_attempt_at=row["next_attempt_at"] if status is DeliveryStatus.PENDING else None,
        created=row["created_at"],
        attempts=tuple(attempts),
    )
