"""Webhook and event domain ⇄ protobuf conversion (proto_mapping.py's counterpart for this area)."""

from __future__ import annotations

from connect.v1 import webhook_pb2

from core_server.kernel.domain.public_json import unix_seconds
from core_server.webhooks.application.webhook_view import delivery_json, endpoint_json, with_secret
from core_server.webhooks.domain.events import StoredEvent, event_body
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus

ENDPOINT_STATUS_TO_PB = {
    WebhookEndpointStatus.ENABLED: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_ENABLED,
    WebhookEndpointStatus.DISABLED: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_DISABLED,
    WebhookEndpointStatus.FAILING: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_FAILING,
}
ENDPOINT_STATUS_FROM_PB = {v: k.value for k, v in ENDPOINT_STATUS_TO_PB.items()}
DELIVERY_STATUS_TO_PB = {
    DeliveryStatus.PENDING: webhook_pb2.WEBHOOK_DELIVERY_STATUS_PENDING,
    DeliveryStatus.SUCCEEDED: webhook_pb2.WEBHOOK_DELIVERY_STATUS_SUCCEEDED,
    DeliveryStatus.FAILED: webhook_pb2.WEBHOOK_DELIVERY_STATUS_FAILED,
}


def endpoint_to_pb(endpoint: WebhookEndpoint) -> webhook_pb2.WebhookEndpoint:
    pb = webhook_pb2.WebhookEndpoint(
        id=endpoint.id,
        url=endpoint.url,
        events=list(endpoint.events),
        status=ENDPOINT_STATUS_TO_PB[endpoint.status],
        created=unix_seconds(endpoint.created),
        livemode=endpoint.livemode,
        secret=endpoint.secret or "",
        object_json=endpoint_json(endpoint),
    )
    if endpoint.description is not None:
        pb.description = endpoint.description
    return pb


def reveal_secret_pb(endpoint: webhook_pb2.WebhookEndpoint, secret: str) -> None:
    """The replay of a create: its stored answer, with the secret put back in both shapes."""
    endpoint.secret = secret
    endpoint.object_json = with_secret(endpoint.object_json, secret)


def attempt_to_pb(attempt: DeliveryAttempt) -> webhook_pb2.WebhookAttempt:
    pb = webhook_pb2.WebhookAttempt(
        attempted_at=unix_seconds(attempt.attempted_at),
        latency_ms=attempt.latency_ms,
        succeeded=attempt.succeeded,
    )
    if attempt.status_code is not None:
        pb.status_code = attempt.status_code
    if attempt.error is not None:
        pb.error = attempt.error
    return pb


def delivery_to_pb(delivery: WebhookDelivery) -> webhook_pb2.WebhookDelivery:
    pb = webhook_pb2.WebhookDelivery(
        id=delivery.id,
        endpoint_id=delivery.endpoint_id,
        event_id=delivery.event_id,
        event_type=delivery.event_type,
        status=DELIVERY_STATUS_TO_PB[delivery.status],
        attempt_count=delivery.attempt_count,
        created=unix_seconds(delivery.created),
        attempts=[attempt_to_pb(a) for a in delivery.attempts],
        object_json=delivery_json(delivery),
    )
    if delivery.next_attempt_at is not None:
        pb.next_attempt_at = unix_seconds(delivery.next_attempt_at)
    return pb


def event_to_pb(event: StoredEvent) -> webhook_pb2.Event:
    return webhook_pb2.Event(
        id=event.id,
        type=event.type,
        created=unix_seconds(event.created),
        livemode=event.environment.livemode,
        object_json=event_body(event.payload).decode("utf-8"),
    )
