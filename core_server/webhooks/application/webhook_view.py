"""The one public shape of a webhook endpoint and of a delivery with its attempts: what the REST API
answers, rendered here once and carried to the gateway as `object_json` (docs/architecture.md "a
resource's public JSON"). The Event object itself is rendered by the outbox (`event_body`)."""

from __future__ import annotations

import json

from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint


def endpoint_view(endpoint: WebhookEndpoint) -> JSON:
    """The spec's webhook endpoint; `secret` only where the endpoint carries it (the create answer)."""
    view: JSON = {
        "id": endpoint.id,
        "object": "webhook_endpoint",
        "url": endpoint.url,
        "events": list(endpoint.events),
        "description": endpoint.description,
        "status": endpoint.status.value,
        "created": unix_seconds(endpoint.created),
        "livemode": endpoint.livemode,
    }
    if endpoint.secret is not None:
        view["secret"] = endpoint.secret
    return view


def with_secret(endpoint_json: str, secret: str) -> str:
    """A stored create answer (rendered without its secret: idempotency records are not encrypted) with
    the secret put back, for the replay of the same create; read on that rare path only."""
    view: JSON = json.loads(endpoint_json)
    view["secret"] = secret
    return compact_json(view)


def attempt_view(attempt: DeliveryAttempt) -> JSON:
    return {
        "attempted_at": unix_seconds(attempt.attempted_at),
        "status_code": attempt.status_code,
        "latency_ms": attempt.latency_ms,
        "error": attempt.error,
        "succeeded": attempt.succeeded,
    }


def delivery_view(delivery: WebhookDelivery) -> JSON:
    """One event's delivery to one endpoint; `next_attempt_at` is set only while pending."""
    return {
        "id": delivery.id,
        "object": "webhook_delivery",
        "webhook_endpoint": delivery.endpoint_id,
        "event": delivery.event_id,
        "event_type": delivery.event_type,
        "status": delivery.status.value,
        "attempt_count": delivery.attempt_count,
        "next_attempt_at": (
            unix_seconds(delivery.next_attempt_at) if delivery.next_attempt_at is not None else None
        ),
        "created": unix_seconds(delivery.created),
        "attempts": [attempt_view(a) for a in delivery.attempts],
    }


def endpoint_json(endpoint: WebhookEndpoint) -> str:
    """The view as carried to the gateway in `object_json`."""
    return compact_json(endpoint_view(endpoint))


def delivery_json(delivery: WebhookDelivery) -> str:
    return compact_json(delivery_view(delivery))
