"""Thin HTTP helpers for end-to-end tests: sign up a merchant, get keys, create and pay charges."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

API = "/api/v1/connect"
PASSWORD = "correct horse"  # every merchant sign_up makes
CARD_OK = {"card_number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"}


@dataclass
class Merchant:
    id: str
    email: str
    token: str
    secret_key: str
    publishable_key: str
    key_id: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secret_key}"}

    @property
    def jwt(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def sign_up(client: httpx.Client, environment: str = "test") -> Merchant:
    email = f"m{uuid.uuid4().hex[:12]}@example.com"
    created = client.post(
        "/api/v1/merchants", json={"email": email, "password": PASSWORD, "business_name": "Acme"}
    )
    assert created.status_code == 201, created.text
    token = client.post("/api/v1/auth/token", json={"email": email, "password": PASSWORD})
    assert token.status_code == 200, token.text
    jwt = token.json()["access_token"]
    key = client.post(
        f"{API}/keys",
        json={"name": "e2e", "environment": environment},
        headers={"Authorization": f"Bearer {jwt}"},
    )
    assert key.status_code == 201, key.text
    body = key.json()
    return Merchant(created.json()["id"], email, jwt, body["secret_key"], body["publishable_key"], body["id"])


def create_charge(client: httpx.Client, merchant: Merchant, **overrides: Any) -> dict[str, Any]:
    body = {
        "amount": 10_000,
        "currency": "usd",
        "return_url": "https://shop.example/ok",
        "cancel_url": "https://shop.example/cancel",
        **overrides,
    }
    response = client.post(f"{API}/charges", json=body, headers=merchant.auth)
    assert response.status_code == 201, response.text
    return response.json()


def create_endpoint(
    client: httpx.Client, merchant: Merchant, url: str, events: tuple[str, ...] = ("charge.created",)
) -> dict[str, Any]:
    """A webhook endpoint of `merchant` for `events` at `url` (201 asserted); its JSON, secret included."""
    answer = client.post(f"{API}/webhooks", json={"url": url, "events": list(events)}, headers=merchant.auth)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def pay(client: httpx.Client, charge_id: str, card: dict[str, Any] | None = None) -> httpx.Response:
    return client.post(
        f"/checkout/{charge_id}/complete",
        json={"paymentMethod": "card", "paymentMethodDetails": card or CARD_OK},
    )


def authorized_charge(client: httpx.Client, merchant: Merchant, **overrides: Any) -> dict[str, Any]:
    charge = create_charge(client, merchant, **overrides)
    paid = pay(client, charge["id"])
    assert paid.status_code == 200 and paid.json()["success"], paid.text
    return charge


def assert_error(
    response: httpx.Response, status: int, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) >= {"type", "code", "message", "param", "doc_url"}
    assert error["type"] == type_
    if code is not None:
        assert error["code"] == code, error
    if param is not None:
        assert error["param"] == param, error
    return error


def captured_charges(base_url: str, merchant: Merchant, n: int) -> list[str]:
    """`n` fresh captured charges, each through checkout and capture (so refund counts start at zero)."""
    with httpx.Client(base_url=base_url, timeout=15.0) as client:
        ids = []
        for _ in range(n):
            charge = authorized_charge(client, merchant)
            captured = client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers=merchant.auth)
            assert captured.status_code == 200, captured.text
            ids.append(charge["id"])
    return ids
