"""Webhook pb2 -> JSON: enum tables complete, the secret only on create, events as stored."""

from __future__ import annotations

import json

import pytest
from connect.v1 import webhook_pb2

from http_gateway.webhooks.serializers import (
    DELIVERY_STATUS_NAMES,
    ENDPOINT_STATUS_NAMES,
    event_json,
    webhook_delivery_json,
    webhook_endpoint_json,
)


@pytest.mark.parametrize(
    ("enum", "table"),
    [
        (webhook_pb2.WebhookEndpointStatus, ENDPOINT_STATUS_NAMES),
        (webhook_pb2.WebhookDeliveryStatus, DELIVERY_STATUS_NAMES),
    ],
)
def test_every_enum_value_has_an_entry(enum, table):
    assert set(table) == set(enum.values())


def _endpoint() -> webhook_pb2.WebhookEndpoint:
    return webhook_pb2.WebhookEndpoint(
        id="we_" + "a" * 24,
        url="https://shop.example/hook",
        events=["charge.created"],
        status=webhook_pb2.WEBHOOK_ENDPOINT_STATUS_FAILING,
        created=1_700_000_000,
        secret="whsec_" + "s" * 32,
    )


def test_the_endpoint_object_shows_its_secret_only_when_asked():
    shown = webhook_endpoint_json(_endpoint(), include_secret=True)
    assert shown == {
        "id": "we_" + "a" * 24,
        "object": "webhook_endpoint",
        "url": "https://shop.example/hook",
        "events": ["charge.created"],
        "description": None,
        "status": "failing",
        "created": 1_700_000_000,
        "livemode": False,
        "secret": "whsec_" + "s" * 32,
    }
    assert "secret" not in webhook_endpoint_json(_endpoint())


def test_a_delivery_lists_its_attempts_with_nulls_for_what_did_not_happen():
    delivery = webhook_pb2.WebhookDelivery(
        id="whd_1",
        endpoint_id="we_1",
        event_id="evt_1",
        event_type="charge.created",
        status=webhook_pb2.WEBHOOK_DELIVERY_STATUS_PENDING,
        attempt_count=1,
        next_attempt_at=1_700_000_060,
        created=1_700_000_000,
        attempts=[webhook_pb2.WebhookAttempt(attempted_at=1_700_000_000, latency_ms=12, error="refused")],
    )
    body = webhook_delivery_json(delivery)
    assert body["status"] == "pending" and body["next_attempt_at"] == 1_700_000_060
    assert body["attempts"] == [
        {
            "attempted_at": 1_700_000_000,
            "status_code": None,
            "latency_ms": 12,
            "error": "refused",
            "succeeded": False,
        }
    ]


def test_an_event_is_its_stored_payload_with_integers_intact():
    payload = {
        "id": "evt_1",
        "object": "event",
        "type": "charge.created",
        "created": 1_700_000_000,
        "livemode": False,
        "data": {"object": {"amount": 99_999_999}},
    }
    event = webhook_pb2.Event(id="evt_1", type="charge.created", payload_json=json.dumps(payload))
    assert event_json(event) == payload
    assert isinstance(event_json(event)["data"]["object"]["amount"], int)
