"""pb2 webhook endpoints, deliveries and events -> the spec's JSON objects, with their status tables."""

from __future__ import annotations

import json
from collections.abc import Mapping

from connect.v1 import webhook_pb2

from http_gateway.edge.serialization import JSON, opt

ENDPOINT_STATUS_NAMES: Mapping[int, str | None] = {
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: None,
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_ENABLED: "enabled",
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_DISABLED: "disabled",
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_FAILING: "failing",
}
ENDPOINT_STATUS_VALUES = {name: value for value, name in ENDPOINT_STATUS_NAMES.items() if name is not None}
DELIVERY_STATUS_NAMES: Mapping[int, str | None] = {
    webhook_pb2.WEBHOOK_DELIVERY_STATUS_UNSPECIFIED: None,
    webhook_pb2.WEBHOOK_DELIVERY_STATUS_PENDING: "pending",
    webhook_pb2.WEBHOOK_DELIVERY_STATUS_SUCCEEDED: "succeeded",
    webhook_pb2.WEBHOOK_DELIVERY_STATUS_FAILED: "failed",
}


def webhook_endpoint_json(endpoint: webhook_pb2.WebhookEndpoint, *, include_secret: bool = False) -> JSON:
    """The spec's webhook endpoint; `secret` only in the create answer (it is never shown again)."""
    out: JSON = {
        "id": endpoint.id,
        "object": "webhook_endpoint",
        "url": endpoint.url,
        "events": list(endpoint.events),
        "description": opt(endpoint, "description"),
        "status": ENDPOINT_STATUS_NAMES.get(endpoint.status),
        "created": endpoint.created,
        "livemode": endpoint.livemode,
    }
    if include_secret:
        out["secret"] = endpoint.secret
    return out


def webhook_attempt_json(attempt: webhook_pb2.WebhookAttempt) -> JSON:
    return {
        "attempted_at": attempt.attempted_at,
        "status_code": opt(attempt, "status_code"),
        "latency_ms": attempt.latency_ms,
        "error": opt(attempt, "error"),
        "succeeded": attempt.succeeded,
    }


def webhook_delivery_json(delivery: webhook_pb2.WebhookDelivery) -> JSON:
    return {
        "id": delivery.id,
        "object": "webhook_delivery",
        "webhook_endpoint": delivery.endpoint_id,
        "event": delivery.event_id,
        "event_type": delivery.event_type,
        "status": DELIVERY_STATUS_NAMES.get(delivery.status),
        "attempt_count": delivery.attempt_count,
        "next_attempt_at": opt(delivery, "next_attempt_at"),
        "created": delivery.created,
        "attempts": [webhook_attempt_json(a) for a in delivery.attempts],
    }


def event_json(event: webhook_pb2.Event) -> JSON:
    """The stored Event object itself, exactly as deliveries carry it."""
    payload: JSON = json.loads(event.payload_json)
    return payload
