"""Merchants, login, JWT, profile and key management (DESIGN §3)."""

from __future__ import annotations

import re
import time
import uuid

import httpx
import jwt
import pytest

from tests.e2e.api_client import API, assert_error, create_charge, sign_up

pytestmark = pytest.mark.e2e


def test_signup_login_profile(client: httpx.Client) -> None:
    email = f"p{uuid.uuid4().hex[:10]}@example.com"
    created = client.post("/api/v1/merchants", json={"email": email, "password": "longenough"})
    assert created.status_code == 201
    body = created.json()
    assert re.fullmatch(r"acct_[A-Za-z0-9]+", body["id"]) and body["object"] == "merchant"
    assert body["email"] == email and isinstance(body["created"], int) and "password" not in str(body)
    assert_error(
        client.post("/api/v1/merchants", json={"email": email, "password": "longenough"}),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "email",
    )
    assert_error(
        client.post("/api/v1/merchants", json={"email": "x" + email, "password": "short"}),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "password",
    )
    assert_error(
        client.post("/api/v1/auth/token", json={"email": email, "password": "wrong-password"}),
        401,
        "authentication_error",
    )
    token = client.post("/api/v1/auth/token", json={"email": email, "password": "longenough"}).json()
    assert token["token_type"] == "bearer" and token["expires_in"] > 0
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    patched = client.patch(
        "/api/v1/merchants/me",
        headers=headers,
        json={"business_name": "Café", "payout_schedule": "weekly", "brand_color": "#abcdef"},
    )
    assert patched.status_code == 200, patched.text
    me = client.get("/api/v1/merchants/me", headers=headers).json()
    assert (me["business_name"], me["payout_schedule"], me["brand_color"]) == ("Café", "weekly", "#abcdef")
    assert_error(
        client.patch("/api/v1/merchants/me", headers=headers, json={"brand_color": "red"}),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "brand_color",
    )


def test_keys_create_list_revoke(client: httpx.Client) -> None:
    merchant = sign_up(client)
    assert re.fullmatch(r"sk_test_[A-Za-z0-9]{32}", merchant.secret_key)
    assert re.fullmatch(r"pk_test_[A-Za-z0-9]{32}", merchant.publishable_key)
    listed = client.get(f"{API}/keys", headers=merchant.jwt).json()
    assert listed["object"] == "list" and len(listed["data"]) == 1
    entry = listed["data"][0]
    assert "secret_key" not in entry and entry["secret_key_last4"] == merchant.secret_key[-4:]
    create_charge(client, merchant)
    revoked = client.delete(f"{API}/keys/{merchant.key_id}", headers=merchant.jwt)
    assert revoked.status_code == 200 and revoked.json()["revoked"] is True and revoked.json()["revoked_at"]
    assert_error(
        client.get(f"{API}/charges", headers=merchant.auth), 401, "authentication_error", "api_key_revoked"
    )


def test_key_limit_is_ten(client: httpx.Client) -> None:
    merchant = sign_up(client)
    for i in range(9):
        assert (
            client.post(
                f"{API}/keys", json={"name": f"k{i}", "environment": "live"}, headers=merchant.jwt
            ).status_code
            == 201
        )
    assert_error(
        client.post(f"{API}/keys", json={"name": "k11", "environment": "test"}, headers=merchant.jwt),
        400,
        "invalid_request_error",
        "parameter_invalid",
    )


def test_wrong_credentials_per_route_kind(client: httpx.Client) -> None:
    merchant = sign_up(client)
    pk = {"Authorization": f"Bearer {merchant.publishable_key}"}
    assert_error(client.get(f"{API}/charges", headers=pk), 403, "authorization_error")
    assert_error(client.get(f"{API}/charges", headers=merchant.jwt), 401, "authentication_error")
    assert_error(client.get(f"{API}/keys", headers=merchant.auth), 401, "authentication_error")
    assert_error(client.get(f"{API}/charges"), 401, "authentication_error")
    assert_error(
        client.get(f"{API}/charges", headers={"Authorization": "Bearer sk_test_" + "0" * 32}),
        401,
        "authentication_error",
    )


def test_forged_and_expired_tokens_are_refused(client: httpx.Client) -> None:
    merchant = sign_up(client)
    now = int(time.time())
    claims = {"sub": merchant.id, "iss": "payment-connect", "typ": "merchant", "iat": now, "exp": now + 60}
    forged = jwt.encode(claims, "not-the-key-not-the-key-not-the-key!", algorithm="HS256")
    unsigned = jwt.encode(claims, None, algorithm="none")  # type: ignore[arg-type]
    header, payload, signature = merchant.token.split(".")
    tampered = ".".join([header, payload[:-2] + ("AA" if not payload.endswith("AA") else "BB"), signature])
    for token in (forged, unsigned, tampered, "garbage"):
        assert_error(
            client.get(f"{API}/keys", headers={"Authorization": f"Bearer {token}"}),
            401,
            "authentication_error",
        )
