"""Webhooks through the gateway and the real core: register, receive signed events, list, resend."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from core_server.webhooks.domain.webhook_signature import verify_signature
from tests.e2e.api_client import API, assert_error, authorized_charge, create_charge, sign_up
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def register(
    client: httpx.Client, auth: dict[str, str], url: str, events: list[str], **extra: object
) -> dict:
    response = client.post(f"{API}/webhooks", json={"url": url, "events": events, **extra}, headers=auth)
    assert response.status_code == 201, response.text
    return response.json()


def test_register_receive_verify_list_deliveries_and_resend(
    client: httpx.Client, receiver: WebhookReceiver
) -> None:
    merchant = sign_up(client)
    created = register(
        client,
        merchant.auth,
        receiver.url("/shop"),
        ["charge.created", "charge.completed"],
        description="orders",
    )
    assert created["id"].startswith("we_") and created["object"] == "webhook_endpoint"
    assert created["secret"].startswith("whsec_")
    assert (created["status"], created["livemode"], created["description"]) == ("enabled", False, "orders")
    secret = created["secret"]
    listed = client.get(f"{API}/webhooks", headers=merchant.auth).json()
    assert listed["object"] == "list" and [e["id"] for e in listed["data"]] == [created["id"]]
    assert "secret" not in listed["data"][0]
    assert "secret" not in client.get(f"{API}/webhooks/{created['id']}", headers=merchant.auth).json()

    charge = authorized_charge(client, merchant)
    got = receiver.wait_for_sync(2, "/shop")
    assert sorted(d.event["type"] for d in got) == ["charge.completed", "charge.created"]
    for delivery in got:
        assert verify_signature(delivery.body, delivery.signature, secret)
        assert not verify_signature(delivery.body + b" ", delivery.signature, secret)
        assert not verify_signature(delivery.body, delivery.signature, secret, now=int(time.time()) + 400)
        assert delivery.event["data"]["object"]["id"] == charge["id"]

    completed = client.get(f"{API}/events", params={"type": "charge.completed"}, headers=merchant.auth).json()
    assert completed["url"] == f"{API}/events" and completed["has_more"] is False
    (event,) = completed["data"]
    delivered = next(d for d in got if d.event["type"] == "charge.completed")
    assert event == json.loads(delivered.body)
    assert client.get(f"{API}/events/{event['id']}", headers=merchant.auth).json() == event

    deadline = time.monotonic() + 5
    while True:  # the core records the attempt just after the receiver answered
        deliveries = client.get(f"{API}/webhooks/{created['id']}/deliveries", headers=merchant.auth).json()
        if all(d["status"] == "succeeded" for d in deliveries["data"]) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(deliveries["data"]) == 2
    for delivery in deliveries["data"]:
        assert delivery["object"] == "webhook_delivery" and delivery["status"] == "succeeded"
        (attempt,) = delivery["attempts"]
        assert attempt["status_code"] == 200 and attempt["succeeded"] and attempt["error"] is None
        assert attempt["latency_ms"] >= 0 and attempt["attempted_at"] > 0

    resent = client.post(f"{API}/events/{event['id']}/resend", headers=merchant.auth)
    assert resent.status_code == 200, resent.text
    (queued,) = resent.json()["data"]
    assert (queued["webhook_endpoint"], queued["event"]) == (created["id"], event["id"])
    again = receiver.wait_for_sync(3, "/shop")
    assert [d.event["id"] for d in again].count(event["id"]) == 2


def test_endpoint_rules_through_the_api(client: httpx.Client) -> None:
    merchant = sign_up(client)
    auth = {**merchant.auth, "Idempotency-Key": "create-hook-1"}
    first = client.post(
        f"{API}/webhooks", json={"url": "http://localhost:9/a", "events": ["*"]}, headers=auth
    )
    replay = client.post(
        f"{API}/webhooks", json={"url": "http://localhost:9/a", "events": ["*"]}, headers=auth
    )
    assert first.status_code == replay.status_code == 201
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.json() == first.json() and replay.json()["secret"].startswith("whsec_")
    endpoint_id = first.json()["id"]

    patched = client.patch(
        f"{API}/webhooks/{endpoint_id}",
        headers=merchant.auth,
        json={
            "url": "http://localhost:9/b",
            "events": ["charge.refunded"],
            "description": "refunds",
            "status": "disabled",
        },
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert (body["url"], body["events"], body["description"], body["status"]) == (
        "http://localhost:9/b",
        ["charge.refunded"],
        "refunds",
        "disabled",
    )
    assert "secret" not in body
    bad = [
        ({"status": "failing"}, "status"),
        ({"status": "paused"}, "status"),
        ({"events": ["charge.exploded"]}, "events"),
        ({"events": "charge.created"}, "events"),
        ({"url": "ftp://localhost/x"}, "url"),
        ({"colour": "red"}, "colour"),
    ]
    for change, param in bad:
        response = client.patch(f"{API}/webhooks/{endpoint_id}", json=change, headers=merchant.auth)
        assert_error(response, 400, "invalid_request_error", "parameter_invalid", param)
    missing = client.post(f"{API}/webhooks", json={"url": "http://localhost:9/x"}, headers=merchant.auth)
    assert_error(missing, 400, "invalid_request_error", "parameter_missing", "events")

    for n in range(9):
        register(client, merchant.auth, f"http://localhost:9/{n}", ["*"])
    eleventh = client.post(
        f"{API}/webhooks", json={"url": "http://localhost:9/11", "events": ["*"]}, headers=merchant.auth
    )
    assert_error(eleventh, 400, "invalid_request_error", "parameter_invalid")

    deleted = client.delete(f"{API}/webhooks/{endpoint_id}", headers=merchant.auth)
    assert deleted.status_code == 200
    assert deleted.json() == {"id": endpoint_id, "object": "webhook_endpoint", "deleted": True}
    assert_error(
        client.get(f"{API}/webhooks/{endpoint_id}", headers=merchant.auth), 404, "resource_not_found"
    )
    assert_error(
        client.delete(f"{API}/webhooks/{endpoint_id}", headers=merchant.auth), 404, "resource_not_found"
    )
    stranger = sign_up(client)
    some = client.get(f"{API}/webhooks", headers=merchant.auth).json()["data"][0]["id"]
    assert_error(client.get(f"{API}/webhooks/{some}", headers=stranger.auth), 404, "resource_not_found")


def test_live_endpoints_need_https_and_a_public_address(client: httpx.Client) -> None:
    merchant = sign_up(client, environment="live")
    for url in (
        "http://93.184.215.14/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.1.2.3/hook",
        "https://169.254.169.254/latest",
    ):
        response = client.post(f"{API}/webhooks", json={"url": url, "events": ["*"]}, headers=merchant.auth)
        assert_error(response, 400, "invalid_request_error", "parameter_invalid", "url")
    created = register(client, merchant.auth, "https://93.184.215.14/hook", ["charge.created"])
    assert created["livemode"] is True


def test_events_list_filters_paginates_and_stays_with_its_merchant(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charges = [create_charge(client, merchant) for _ in range(3)]
    page = client.get(f"{API}/events", params={"limit": 2}, headers=merchant.auth).json()
    assert page["has_more"] is True and len(page["data"]) == 2
    assert [e["data"]["object"]["id"] for e in page["data"]] == [charges[2]["id"], charges[1]["id"]]
    rest = client.get(
        f"{API}/events", params={"limit": 2, "starting_after": page["data"][-1]["id"]}, headers=merchant.auth
    ).json()
    assert rest["has_more"] is False and [e["data"]["object"]["id"] for e in rest["data"]] == [
        charges[0]["id"]
    ]
    assert (
        len(client.get(f"{API}/events", params={"type": "charge.*"}, headers=merchant.auth).json()["data"])
        == 3
    )
    assert (
        client.get(f"{API}/events", params={"type": "charge.refunded"}, headers=merchant.auth).json()["data"]
        == []
    )
    for params, param in (
        ({"type": "charge.nope"}, "type"),
        ({"limit": 0}, "limit"),
        ({"starting_after": "evt_unknown"}, "starting_after"),
    ):
        response = client.get(f"{API}/events", params=params, headers=merchant.auth)
        assert_error(response, 400, "invalid_request_error", "parameter_invalid", param)
    stranger = sign_up(client)
    event_id = page["data"][0]["id"]
    assert_error(client.get(f"{API}/events/{event_id}", headers=stranger.auth), 404, "resource_not_found")
    assert_error(
        client.post(f"{API}/events/{event_id}/resend", headers=stranger.auth), 404, "resource_not_found"
    )
    nothing = client.post(f"{API}/events/{event_id}/resend", headers=merchant.auth)
    assert nothing.status_code == 200 and nothing.json()["data"] == []  # no endpoint subscribed
