"""Webhook and event domain ⇄ protobuf conversion: each object as the core renders it (`object_json`),
and the endpoint status table of the update's input."""

from __future__ import annotations

from connect.v1 import webhook_pb2

from core_server.kernel.domain.public_json import unix_seconds
from core_server.webhooks.application.webhook_view import delivery_json, endpoint_json, with_secret
from core_server.webhooks.domain.events import StoredEvent, event_body
from core_server.webhooks.domain.webhook_delivery import WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus

ENDPOINT_STATUS_TO_PB = {
    WebhookEndpointStatus.ENABLED: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_ENABLED,
    WebhookEndpointStatus.DISABLED: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_DISABLED,
    WebhookEndpointStatus.FAILING: webhook_pb2.WEBHOOK_ENDPOINT_STATUS_FAILING,
}
ENDPOINT_STATUS_FROM_PB = {v: k.value for k, v in ENDPOINT_STATUS_TO_PB.items()}


def endpoint_to_pb(endpoint: WebhookEndpoint) -> webhook_pb2.WebhookEndpoint:
    return webhook_pb2.WebhookEndpoint(
        id=endpoint.id, secret=endpoint.secret or "", object_json=endpoint_json(endpoint)
    )


def reveal_secret_pb(endpoint: webhook_pb2.WebhookEndpoint, secret: str) -> None:
    """The replay of a create: its stored answer, with the secret put back in both shapes."""
    endpoint.secret = secret
    endpoint.object_json = with_secret(endpoint.object_json, secret)


def delivery_to_pb(delivery: WebhookDelivery) -> webhook_pb2.WebhookDelivery:
    return webhook_pb2.WebhookDelivery(id=delivery.id, object_json=delivery_json(delivery))


def event_to_pb(event: StoredEvent) -> webhook_pb2.Event:
    return webhook_pb2.Event(
        id=event.id,
        type=event.type,
        created=unix_seconds(event.created),
        livemode=event.environment.livemode,
        object_json=event_body(event.payload).decode("utf-8"),
    )
