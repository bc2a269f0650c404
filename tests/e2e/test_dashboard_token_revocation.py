"""Dashboard tokens are revocable (DESIGN §10.9): a password change bumps the merchant's token version,
and every token issued before it — on any device, the one used for the change included — is refused."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.api_client import API, PASSWORD, assert_error, sign_up

pytestmark = pytest.mark.e2e

PASSWORD_ROUTE = "/api/v1/merchants/me/password"
NEW_PASSWORD = "a much better passphrase"


def login(client: httpx.Client, email: str, password: str) -> httpx.Response:
    return client.post("/api/v1/auth/token", json={"email": email, "password": password})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_password_change_needs_the_current_password(client: httpx.Client) -> None:
    merchant = sign_up(client)
    missing = client.post(PASSWORD_ROUTE, json={"new_password": NEW_PASSWORD}, headers=merchant.jwt)
    assert_error(missing, 400, "invalid_request_error", "parameter_missing", "current_password")
    wrong = client.post(
        PASSWORD_ROUTE, json={"current_password": "guess", "new_password": NEW_PASSWORD}, headers=merchant.jwt
    )
    assert_error(wrong, 400, "invalid_request_error", "parameter_invalid", "current_password")
    short = client.post(
        PASSWORD_ROUTE, json={"current_password": PASSWORD, "new_password": "short"}, headers=merchant.jwt
    )
    assert_error(short, 400, "invalid_request_error", "parameter_invalid", "new_password")
    # Nothing changed: the token still works and the old password still logs in.
    assert client.get("/api/v1/merchants/me", headers=merchant.jwt).status_code == 200
    assert login(client, merchant.email, PASSWORD).status_code == 200


def test_a_password_change_revokes_every_earlier_dashboard_token(client: httpx.Client) -> None:
    merchant = sign_up(client)
    other_device = login(client, merchant.email, PASSWORD).json()["access_token"]
    assert client.get(f"{API}/keys", headers=bearer(other_device)).status_code == 200

    changed = client.post(
        PASSWORD_ROUTE,
        json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        headers=merchant.jwt,
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["id"] == merchant.id and "token_version" not in changed.json()

    for token in (merchant.token, other_device):
        refused = client.get("/api/v1/merchants/me", headers=bearer(token))
        assert_error(refused, 401, "authentication_error", "token_invalid")
        assert "revoked" in refused.json()["error"]["message"]
        assert_error(
            client.get(f"{API}/keys", headers=bearer(token)), 401, "authentication_error", "token_invalid"
        )

    assert login(client, merchant.email, PASSWORD).status_code == 401
    fresh = login(client, merchant.email, NEW_PASSWORD)
    assert fresh.status_code == 200, fresh.text
    assert client.get("/api/v1/merchants/me", headers=bearer(fresh.json()["access_token"])).status_code == 200
    # API keys are not dashboard tokens: the integration keeps working through the change.
    assert client.get(f"{API}/charges", headers=merchant.auth).status_code == 200
