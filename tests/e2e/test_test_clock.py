"""The sandbox clock through the gateway (DESIGN §9): read, advance, and every charge timer following it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, authorized_charge, create_charge, sign_up
from tests.support.sandbox_clock import CLOCK, DAY, HOUR, advance, clock_now
from tests.webhook_receivers import start_receiver

pytestmark = pytest.mark.e2e


def status_of(client: httpx.Client, merchant: Merchant, charge_id: str) -> str:
    response = client.get(f"{API}/charges/{charge_id}", headers=merchant.auth)
    assert response.status_code == 200, response.text
    return str(response.json()["status"])


def test_a_fresh_clock_reads_real_time(client: httpx.Client) -> None:
    merchant = sign_up(client)
    assert abs(clock_now(client, merchant) - time.time()) <= 2


def test_advancing_25_hours_expires_a_pending_charge_at_once(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    advance(client, merchant, 23 * HOUR)
    assert status_of(client, merchant, charge["id"]) == "pending"
    advance(client, merchant, 2 * HOUR)
    assert status_of(client, merchant, charge["id"]) == "expired"
    page = client.get(f"/checkout/{charge['id']}").json()
    assert page["valid"] is False and page["status"] == "expired"


def test_advancing_8_days_voids_an_authorized_charge(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = authorized_charge(client, merchant)
    advance(client, merchant, 6 * DAY)
    assert status_of(client, merchant, charge["id"]) == "authorized"
    advance(client, merchant, 2 * DAY)
    assert status_of(client, merchant, charge["id"]) == "voided"
    assert_error(
        client.post(f"{API}/charges/{charge['id']}/capture", headers=merchant.auth),
        400,
        "invalid_request_error",
    )


def test_new_objects_are_stamped_with_the_test_time(client: httpx.Client) -> None:
    merchant = sign_up(client)
    now = advance(client, merchant, 10 * DAY)
    charge = create_charge(client, merchant)
    assert abs(charge["created"] - now) <= 2
    assert charge["expires_at"] == charge["created"] + DAY


def test_the_clock_only_moves_forward(client: httpx.Client) -> None:
    merchant = sign_up(client)
    now = clock_now(client, merchant)
    past = client.post(f"{CLOCK}/advance", json={"to": now - 60}, headers=merchant.auth)
    assert_error(past, 400, "invalid_request_error", "parameter_invalid", param="to")
    later = advance(client, merchant, HOUR)
    same = client.post(f"{CLOCK}/advance", json={"to": later}, headers=merchant.auth)
    assert same.status_code == 200 and abs(same.json()["now"] - later) <= 2
    assert_error(
        client.post(f"{CLOCK}/advance", json={}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_missing",
        param="to",
    )
    assert_error(
        client.post(f"{CLOCK}/advance", json={"to": "soon"}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_invalid",
        param="to",
    )


def test_live_keys_have_no_test_clock_and_live_objects_keep_real_time(client: httpx.Client) -> None:
    merchant = sign_up(client)
    live_key = client.post(f"{API}/keys", json={"name": "live", "environment": "live"}, headers=merchant.jwt)
    assert live_key.status_code == 201, live_key.text
    live = Merchant(
        merchant.id,
        merchant.email,
        merchant.token,
        live_key.json()["secret_key"],
        live_key.json()["publishable_key"],
        live_key.json()["id"],
    )
    assert client.get(CLOCK, headers=live.auth).status_code == 403
    assert client.post(f"{CLOCK}/advance", json={"to": 4_000_000_000}, headers=live.auth).status_code == 403

    live_charge = create_charge(client, live)
    test_charge = create_charge(client, merchant)
    advance(client, merchant, 2 * DAY)
    assert status_of(client, merchant, test_charge["id"]) == "expired"
    assert status_of(client, live, live_charge["id"]) == "pending"


def test_one_merchants_clock_leaves_another_merchant_alone(client: httpx.Client) -> None:
    mover, other = sign_up(client), sign_up(client)
    others_charge = create_charge(client, other)
    advance(client, mover, 2 * DAY)
    assert abs(clock_now(client, other) - time.time()) <= 2
    assert status_of(client, other, others_charge["id"]) == "pending"


def test_a_failed_webhook_delivery_is_retried_once_the_clock_passes_its_due_time(
    client: httpx.Client,
) -> None:
    merchant = sign_up(client)
    with start_receiver() as receiver:
        receiver.behave("/flaky", status=500)
        endpoint = client.post(
            f"{API}/webhooks",
            json={"url": receiver.url("/flaky"), "events": ["charge.created"]},
            headers=merchant.auth,
        )
        assert endpoint.status_code == 201, endpoint.text
        create_charge(client, merchant)
        receiver.wait_for_sync(1, "/flaky")
        deliveries = f"{API}/webhooks/{endpoint.json()['id']}/deliveries"
        (delivery,) = wait_until(
            lambda: [
                d
                for d in client.get(deliveries, headers=merchant.auth).json()["data"]
                if d["attempt_count"] == 1
            ]
        )
        assert delivery["status"] == "pending"
        due = delivery["next_attempt_at"]
        assert 55 <= due - delivery["attempts"][0]["attempted_at"] <= 65  # the first retry: 1 minute

        receiver.behave("/flaky", status=200)
        time.sleep(1.0)
        assert len(receiver.received("/flaky")) == 1  # not due yet in real time, nor in TEST time
        to = clock_now(client, merchant) + 61
        assert client.post(f"{CLOCK}/advance", json={"to": to}, headers=merchant.auth).status_code == 200
        retried = receiver.wait_for_sync(2, "/flaky")
        assert retried[1].event["id"] == retried[0].event["id"]
        assert abs(int(retried[1].signature.split(",")[0].removeprefix("t=")) - time.time()) <= 5  # real time
        (settled,) = wait_until(
            lambda: [
                d
                for d in client.get(deliveries, headers=merchant.auth).json()["data"]
                if d["status"] == "succeeded"
            ]
        )
        assert settled["attempts"][1]["attempted_at"] >= to


def wait_until(probe: Callable[[], list[dict[str, Any]]], timeout: float = 5.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)
