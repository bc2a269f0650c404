"""Idempotency-Key on POSTs through the gateway (DESIGN §6, §5a order of checks)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, authorized_charge, sign_up

pytestmark = pytest.mark.e2e

BODY = {"amount": 2500, "currency": "eur", "return_url": "https://shop.example/ok"}


def test_create_replays_with_header_and_same_status(client: httpx.Client) -> None:
    merchant = sign_up(client)
    headers = {**merchant.auth, "Idempotency-Key": str(uuid.uuid4())}
    first = client.post(f"{API}/charges", json=BODY, headers=headers)
    second = client.post(f"{API}/charges", json=BODY, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    listed = client.get(f"{API}/charges", headers=merchant.auth).json()
    assert listed["total_count"] == 1


def test_reused_key_with_other_body_or_path_is_409_even_when_invalid(client: httpx.Client) -> None:
    merchant = sign_up(client)
    headers = {**merchant.auth, "Idempotency-Key": str(uuid.uuid4())}
    client.post(f"{API}/charges", json=BODY, headers=headers)
    assert_error(
        client.post(f"{API}/charges", json={**BODY, "amount": 2600}, headers=headers),
        409,
        "idempotency_error",
    )
    assert_error(
        client.post(f"{API}/charges", json={**BODY, "amount": -1}, headers=headers), 409, "idempotency_error"
    )


def test_refund_retry_never_refunds_twice(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = authorized_charge(client, merchant)
    client.post(f"{API}/charges/{charge['id']}/capture", headers=merchant.auth)
    headers = {**merchant.auth, "Idempotency-Key": "refund-" + uuid.uuid4().hex}
    first = client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 700}, headers=headers)
    again = client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 700}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["amount_refunded"] == 700 and len(got["refunds"]) == 1


def test_validation_failure_stores_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    headers = {**merchant.auth, "Idempotency-Key": str(uuid.uuid4())}
    bad = client.post(f"{API}/charges", json={**BODY, "amount": 10}, headers=headers)
    assert_error(bad, 400, "invalid_request_error", "amount_too_small", "amount")
    good = client.post(f"{API}/charges", json=BODY, headers=headers)
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers


def test_overlong_key_is_parameter_invalid(client: httpx.Client) -> None:
    merchant = sign_up(client)
    response = client.post(
        f"{API}/charges", json=BODY, headers={**merchant.auth, "Idempotency-Key": "k" * 101}
    )
    assert_error(response, 400, "invalid_request_error", "parameter_invalid", "Idempotency-Key")
