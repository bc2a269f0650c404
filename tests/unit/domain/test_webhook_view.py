"""The webhook endpoint's and delivery's one public shape, tested where it is rendered
(`webhooks/application/webhook_view.py`): the gateway answers this text as it is."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from connect.v1 import webhook_pb2

from core_server.kernel.domain.environment import Environment
from core_server.webhooks.domain.events import StoredEvent
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus
from core_server.webhooks.transport.webhook_mapping import (
    ENDPOINT_STATUS_TO_PB,
    delivery_to_pb,
    endpoint_to_pb,
    event_to_pb,
    reveal_secret_pb,
)
from http_gateway.webhooks.serializers import ENDPOINT_STATUS_NAMES

CREATED = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
SECRET = "whsec_" + "s" * 32


def _endpoint(secret: str | None = None) -> WebhookEndpoint:
    return WebhookEndpoint(
        id="we_" + "a" * 24,
        merchant_id="acct_1",
        environment=Environment.TEST,
        url="https://shop.example/hook",
        events=("charge.created",),
        description=None,
        status=WebhookEndpointStatus.FAILING,
        created=CREATED,
        secret=secret,
    )


def test_the_gateway_status_table_names_every_status_as_the_core_does():
    assert {ENDPOINT_STATUS_NAMES[pb]: None for pb in ENDPOINT_STATUS_TO_PB.values()} == {
        status.value: None for status in WebhookEndpointStatus
    }
    assert set(ENDPOINT_STATUS_NAMES) == set(webhook_pb2.WebhookEndpointStatus.values())


def test_the_endpoint_object_shows_its_secret_only_in_the_create_answer():
    created = endpoint_to_pb(_endpoint(SECRET))
    assert json.loads(created.object_json) == {
        "id": "we_" + "a" * 24,
        "object": "webhook_endpoint",
        "url": "https://shop.example/hook",
        "events": ["charge.created"],
        "description": None,
        "status": "failing",
        "created": 1_700_000_000,
        "livemode": False,
        "secret": SECRET,
    }
    assert "secret" not in json.loads(endpoint_to_pb(_endpoint()).object_json)


def test_a_replayed_create_gets_the_secret_back_in_the_same_place():
    stored = endpoint_to_pb(_endpoint())  # idempotency records hold no secret
    reveal_secret_pb(stored, SECRET)
    assert stored.object_json == endpoint_to_pb(_endpoint(SECRET)).object_json
    assert stored.secret == SECRET


def test_a_delivery_lists_its_attempts_with_nulls_for_what_did_not_happen():
    attempt = DeliveryAttempt(
        attempted_at=CREATED, status_code=None, latency_ms=12, error="refused", succeeded=False
    )
    delivery = WebhookDelivery(
        id="whd_1",
        endpoint_id="we_1",
        event_id="evt_1",
        event_type="charge.created",
        status=DeliveryStatus.PENDING,
        attempt_count=1,
        next_attempt_at=CREATED + timedelta(seconds=60),
        created=CREATED,
        attempts=(attempt,),
    )
    assert json.loads(delivery_to_pb(delivery).object_json) == {
        "id": "whd_1",
        "object": "webhook_delivery",
        "webhook_endpoint": "we_1",
        "event": "evt_1",
        "event_type": "charge.created",
        "status": "pending",
        "attempt_count": 1,
        "next_attempt_at": 1_700_000_060,
        "created": 1_700_000_000,
        "attempts": [
            {
                "attempted_at": 1_700_000_000,
                "status_code": None,
                "latency_ms": 12,
                "error": "refused",
                "succeeded": False,
            }
        ],
    }


def test_an_event_carries_its_stored_payload_with_integers_intact():
    payload = {
        "id": "evt_1",
        "object": "event",
        "type": "charge.created",
        "created": 1_700_000_000,
        "livemode": False,
        "data": {"object": {"amount": 99_999_999}},
    }
    event = StoredEvent("evt_1", "acct_1", Environment.TEST, "charge.created", CREATED, payload)
    answered = json.loads(event_to_pb(event).object_json)
    assert answered == payload and isinstance(answered["data"]["object"]["amount"], int)
