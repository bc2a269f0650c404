"""`payconnect listen` sessions through the gateway (DESIGN §10.6): limits, the stable secret, the signed
SSE stream, resuming after a gateway restart, reported answers."""

from __future__ import annotations

import json

import httpx
import pytest
import stripe

from core_server.webhooks.domain.webhook_signature import verify_signature
from payconnect import webhooks
from tests.e2e.api_client import API, Merchant, assert_error, create_charge, sign_up
from tests.e2e.developer_tools_support import SESSIONS, StreamReader, live_key, open_session
from tests.support.processes import RunningProcess, free_port, start_gateway

pytestmark = pytest.mark.e2e


def test_a_session_has_an_id_a_secret_and_its_stream_url(client: httpx.Client) -> None:
    merchant = sign_up(client)
    session = open_session(client, merchant)
    assert session["id"].startswith("clis_") and len(session["id"]) == 29
    assert session["object"] == "cli_session"
    assert session["secret"].startswith("whsec_") and len(session["secret"]) == 38
    assert session["stream_url"] == f"{client.base_url}{SESSIONS}/{session['id']}/stream"
    assert session["expires_at"] > session["created"]


def test_the_secret_is_stable_per_merchant_and_device(client: httpx.Client) -> None:
    merchant, other = sign_up(client), sign_up(client)
    first = open_session(client, merchant, "laptop")
    again = open_session(client, merchant, "laptop")
    assert again["id"] != first["id"] and again["secret"] == first["secret"]
    assert open_session(client, merchant, "desktop")["secret"] != first["secret"]
    assert open_session(client, other, "laptop")["secret"] != first["secret"]


def test_at_most_five_open_sessions_and_a_device_replaces_its_own(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sessions = [open_session(client, merchant, f"device-{n}") for n in range(5)]
    sixth = client.post(SESSIONS, json={"device_name": "device-6"}, headers=merchant.auth)
    assert_error(sixth, 400, "invalid_request_error", "parameter_invalid")
    # Restarting `listen` on a device replaces its session rather than taking a sixth slot.
    open_session(client, merchant, "device-0")
    closed = client.delete(f"{SESSIONS}/{sessions[1]['id']}", headers=merchant.auth)
    assert closed.status_code == 200 and closed.json()["closed"] is True
    open_session(client, merchant, "device-6")
    # The replaced and the closed sessions stream no more.
    for old in (sessions[0], sessions[1]):
        stream = client.get(f"{SESSIONS}/{old['id']}/stream", headers=merchant.auth)
        assert_error(stream, 404, "resource_not_found")


def test_live_keys_are_refused_and_bodies_are_checked(client: httpx.Client) -> None:
    merchant = sign_up(client)
    live = live_key(client, merchant)
    assert_error(client.post(SESSIONS, json={"device_name": "x"}, headers=live), 403, "authorization_error")
    assert_error(client.post(SESSIONS, json={}, headers=merchant.auth), 400, "invalid_request_error")
    unknown = client.post(SESSIONS, json={"device_name": "x", "colour": 1}, headers=merchant.auth)
    assert_error(unknown, 400, "invalid_request_error", "parameter_invalid", "colour")
    other = sign_up(client)
    session = open_session(client, merchant)
    assert_error(
        client.get(f"{SESSIONS}/{session['id']}/stream", headers=other.auth), 404, "resource_not_found"
    )


def test_the_stream_delivers_each_event_signed_like_a_webhook(
    client: httpx.Client, gateway_process: RunningProcess
) -> None:
    merchant = sign_up(client)
    session = open_session(client, merchant)
    reader = StreamReader(gateway_process.base_url, session["id"], merchant.auth).start()
    try:
        charge = create_charge(client, merchant)
        (message,) = reader.wait_for(1)
    finally:
        reader.stop()
    assert message["type"] == "charge.created"
    body = message["body"].encode()
    signature = message["headers"]["Service-Signature"]
    assert json.loads(body)["data"]["object"]["id"] == charge["id"]
    assert reader.ids == [message["id"]]
    # The platform's verifier, the client library's, and Stripe's own all accept it.
    assert verify_signature(body, signature, session["secret"])
    assert webhooks.verify(body, signature, session["secret"])
    stripe.WebhookSignature.verify_header(body.decode(), signature, session["secret"], tolerance=300)
    assert not webhooks.verify(body, signature, "whsec_" + "x" * 32)
    # The event is the one the log holds, byte for byte as GET /events shows it.
    event = client.get(f"{API}/events/{message['id']}", headers=merchant.auth).json()
    assert json.loads(body) == event


def test_events_filters_the_stream(client: httpx.Client, gateway_process: RunningProcess) -> None:
    merchant = sign_up(client)
    session = open_session(client, merchant)
    reader = StreamReader(
        gateway_process.base_url, session["id"], merchant.auth, query={"events": "charge.completed"}
    ).start()
    try:
        charge = create_charge(client, merchant)
        paid = client.post(
            f"/checkout/{charge['id']}/complete",
            json={
                "paymentMethod": "card",
                "paymentMethodDetails": {
                    "card_number": "4242424242424242",
                    "exp_month": 12,
                    "exp_year": 2099,
                    "cvc": "123",
                },
            },
        )
        assert paid.status_code == 200, paid.text
        (message,) = reader.wait_for(1)
    finally:
        reader.stop()
    assert message["type"] == "charge.completed"
    bad = client.get(f"{SESSIONS}/{session['id']}/stream?events=nope.nope", headers=merchant.auth)
    assert_error(bad, 400, "invalid_request_error", "parameter_invalid", "events")


def test_resuming_after_a_gateway_restart_loses_and_repeats_nothing(
    client: httpx.Client, core_process: RunningProcess, stack_env: dict[str, str]
) -> None:
    merchant = sign_up(client)
    session = open_session(client, merchant)
    port = free_port()
    gateway = start_gateway(stack_env, [core_process.address], port=port)
    try:
        reader = StreamReader(gateway.base_url, session["id"], merchant.auth).start()
        before = [create_charge(client, merchant)["id"] for _ in range(3)]
        reader.wait_for(3)
        gateway.stop()  # SIGTERM: the open stream is ended, not held
        assert reader.ended.wait(10)
        # Events made while no gateway streams: the client must get each of them once it resumes.
        during = [create_charge(client, merchant)["id"] for _ in range(3)]
        gateway = start_gateway(stack_env, [core_process.address], port=port)
        resumed = StreamReader(
            gateway.base_url, session["id"], merchant.auth, last_event_id=reader.ids[-1]
        ).start()
        after = [create_charge(client, merchant)["id"] for _ in range(2)]
        resumed.wait_for(5)
        resumed.stop()
    finally:
        gateway.stop()

    def charges(messages: list[dict[str, object]]) -> list[str]:
        return [json.loads(str(m["body"]))["data"]["object"]["id"] for m in messages]

    assert charges(reader.messages) == before
    assert charges(resumed.messages) == during + after
    # Through another gateway (the session's own) from the first event: the rest again, in order.
    again = StreamReader(
        str(client.base_url), session["id"], merchant.auth, last_event_id=reader.ids[0]
    ).start()
    again.wait_for(7)
    again.stop()
    assert charges(again.messages)[:7] == before[1:] + during + after


def test_reported_answers_are_listed_like_delivery_attempts(
    client: httpx.Client, gateway_process: RunningProcess
) -> None:
    merchant: Merchant = sign_up(client)
    session = open_session(client, merchant)
    create_charge(client, merchant)
    event = client.get(f"{API}/events", headers=merchant.auth).json()["data"][0]
    answers = f"{SESSIONS}/{session['id']}/responses"
    ok = client.post(
        answers, json={"event_id": event["id"], "status": 200, "latency_ms": 12}, headers=merchant.auth
    )
    assert ok.status_code == 201, ok.text
    failed = client.post(
        answers,
        json={"event_id": event["id"], "status": None, "error": "connection refused"},
        headers=merchant.auth,
    )
    assert failed.status_code == 201, failed.text
    listed = client.get(answers, headers=merchant.auth).json()
    assert listed["object"] == "list" and listed["has_more"] is False
    newest, oldest = listed["data"]
    assert (
        newest["succeeded"] is False
        and newest["error"] == "connection refused"
        and newest["status_code"] is None
    )
    assert oldest["succeeded"] is True and oldest["status_code"] == 200 and oldest["latency_ms"] == 12
    assert oldest["event_type"] == "charge.created" and oldest["object"] == "cli_session_response"
    page = client.get(answers, params={"limit": 1}, headers=merchant.auth).json()
    assert page["has_more"] is True and page["data"][0]["id"] == newest["id"]
    stranger = sign_up(client)
    foreign = client.post(answers, json={"event_id": event["id"], "status": 200}, headers=stranger.auth)
    assert_error(foreign, 404, "resource_not_found")
    unknown = client.post(answers, json={"event_id": "evt_" + "x" * 24, "status": 200}, headers=merchant.auth)
    assert_error(unknown, 400, "invalid_request_error", "parameter_invalid", "event_id")
