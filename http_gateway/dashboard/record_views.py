"""pb2 resources → the dicts the billing and money templates read. Most carry the core's own rendering
(`object_json`, the API's object); webhook endpoints, deliveries and the merchant are plain messages,
named here the way the API names them (the dashboard context imports no other context)."""

from __future__ import annotations

import json
from typing import Any

from connect.v1 import merchant_pb2, webhook_pb2

from http_gateway.dashboard.rendering import enum_label

JSON = dict[str, Any]


def rendered(message: Any) -> JSON:
    """The object as the core rendered it for the API (`object_json`)."""
    view: JSON = json.loads(message.object_json)
    return view


def event_view(event: webhook_pb2.Event) -> JSON:
    view: JSON = json.loads(event.payload_json)
    return view


def endpoint_view(endpoint: webhook_pb2.WebhookEndpoint) -> JSON:
    status = webhook_pb2.WebhookEndpointStatus.Name(endpoint.status)
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "events": list(endpoint.events),
        "description": endpoint.description if endpoint.HasField("description") else None,
        "status": enum_label(status, "WEBHOOK_ENDPOINT_STATUS_"),
        "created": endpoint.created,
    }


def delivery_view(delivery: webhook_pb2.WebhookDelivery) -> JSON:
    status = webhook_pb2.WebhookDeliveryStatus.Name(delivery.status)
    return {
        "id": delivery.id,
        "event": delivery.event_id,
        "event_type": delivery.event_type,
        "status": enum_label(status, "WEBHOOK_DELIVERY_STATUS_"),
        "attempt_count": delivery.attempt_count,
        "next_attempt_at": delivery.next_attempt_at if delivery.HasField("next_attempt_at") else None,
        "attempts": [
            {
                "attempted_at": a.attempted_at,
                "status_code": a.status_code if a.HasField("status_code") else None,
                "latency_ms": a.latency_ms,
                "error": a.error if a.HasField("error") else None,
                "succeeded": a.succeeded,
            }
            for a in delivery.attempts
        ],
    }


def payout_settings_view(merchant: merchant_pb2.Merchant) -> JSON:
    """The schedule (unset means the platform's default, daily) and the account's last four digits."""
    schedule = merchant_pb2.PayoutSchedule.Name(merchant.payout_schedule)
    label = enum_label(schedule, "PAYOUT_SCHEDULE_")
    return {
        "payout_schedule": "daily" if label == "unspecified" else label,
        "payout_account_last4": merchant.payout_account_last4 or None,
    }
