"""The per-account login throttle through the gateway (README, Security): after five wrong passwords for
one e-mail, 429 `login_throttled` with Retry-After, for the right password too, while another e-mail
still logs in."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.api_client import assert_error, sign_up

pytestmark = pytest.mark.e2e

TOKEN = "/api/v1/auth/token"


def test_repeated_wrong_passwords_throttle_one_email_only(client: httpx.Client) -> None:
    victim = sign_up(client)
    bystander = sign_up(client)
    for _ in range(5):
        wrong = client.post(TOKEN, json={"email": victim.email, "password": "not the password"})
        assert_error(wrong, 401, "authentication_error", "invalid_credentials")
    for password in ("not the password", "correct horse"):  # the right one is not even checked
        refused = client.post(TOKEN, json={"email": victim.email.upper(), "password": password})
        assert_error(refused, 429, "rate_limit_error", "login_throttled")
        assert refused.headers["Retry-After"] == "1"
    assert client.post(TOKEN, json={"email": bystander.email, "password": "correct horse"}).status_code == 200


def test_an_unknown_email_is_answered_like_a_known_one(client: httpx.Client) -> None:
    unknown = f"nobody{uuid.uuid4().hex[:10]}@example.com"
    for _ in range(5):
        assert_error(
            client.post(TOKEN, json={"email": unknown, "password": "guess one"}), 401, "authentication_error"
        )
    refused = client.post(TOKEN, json={"email": unknown, "password": "guess two"})
    assert_error(refused, 429, "rate_limit_error", "login_throttled")
    assert int(refused.headers["Retry-After"]) >= 1
