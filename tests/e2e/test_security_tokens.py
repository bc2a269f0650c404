"""Dashboard tokens (JWT) that are expired, forged, unsigned or altered are refused with 401 on every JWT
route."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from tests.conftest import TEST_JWT_SIGNING_KEY
from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

JWT_ROUTES = (
    ("GET", f"{API}/keys", None),
    ("POST", f"{API}/keys", {"name": "x", "environment": "test"}),
    ("DELETE", f"{API}/keys/key_{'a' * 24}", None),
    ("GET", "/api/v1/merchants/me", None),
    ("PATCH", "/api/v1/merchants/me", {"business_name": "Hijacked"}),
    ("GET", "/v1/merchants/me", None),
)


def _b64(data: dict[str, Any] | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _claims(subject: str, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    return {
        "sub": subject,
        "iss": "payment-connect",
        "typ": "merchant",
        "iat": now,
        "exp": now + 600,
        **changes,
    }


@pytest.fixture(scope="module")
def http(gateway_process: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as client:
        yield client


@pytest.fixture(scope="module")
def merchants(http: httpx.Client) -> tuple[Merchant, Merchant]:
    return sign_up(http), sign_up(http)


def _bad_tokens(victim: Merchant, attacker: Merchant) -> dict[str, tuple[str, str]]:
    """name -> (token, expected error code)."""
    header, payload, signature = attacker.token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    hs256 = {"alg": "HS256", "typ": "JWT"}

    def signed(claims: dict[str, Any], key: str = TEST_JWT_SIGNING_KEY) -> str:
        return jwt.encode(claims, key, algorithm="HS256")

    def hs512(claims: dict[str, Any]) -> str:
        """Signed right, with the right key, under an algorithm the gateway does not accept (built by hand:
        PyJWT warns about the key's length for SHA-512)."""
        signing_input = f"{_b64({'alg': 'HS512', 'typ': 'JWT'})}.{_b64(claims)}"
        mac = hmac.new(TEST_JWT_SIGNING_KEY.encode(), signing_input.encode(), hashlib.sha512).digest()
        return f"{signing_input}.{_b64(mac)}"

    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(_claims(victim.id))}"
    return {
        "expired": (
            signed(_claims(victim.id, iat=int(time.time()) - 7200, exp=int(time.time()) - 3600)),
            "token_expired",
        ),
        "expired a second ago": (signed(_claims(victim.id, exp=int(time.time()) - 1)), "token_expired"),
        "wrong signing key": (
            signed(_claims(victim.id), key="not-the-signing-key-not-the-signing-key"),
            "token_invalid",
        ),
        "alg none, empty signature": (unsigned + ".", "token_invalid"),
        "alg none, no signature part": (unsigned, "token_invalid"),
        "alg none, attacker's signature": (f"{unsigned}.{signature}", "token_invalid"),
        "alg NONE": (f"{_b64({'alg': 'NONE'})}.{_b64(_claims(victim.id))}.", "token_invalid"),
        "algorithm swap to HS512": (hs512(_claims(victim.id)), "token_invalid"),
        "payload swapped to the victim": (
            f"{header}.{_b64({**claims, 'sub': victim.id})}.{signature}",
            "token_invalid",
        ),
        "lifetime extended": (
            f"{header}.{_b64({**claims, 'exp': claims['exp'] + 86400})}.{signature}",
            "token_invalid",
        ),
        "header altered": (f"{_b64({**hs256, 'kid': 'other'})}.{payload}.{signature}", "token_invalid"),
        "signature altered": (f"{header}.{payload}.{signature[:-4]}AAAA", "token_invalid"),
        "signature dropped": (f"{header}.{payload}.", "token_invalid"),
        "wrong issuer": (signed(_claims(victim.id, iss="someone-else")), "token_invalid"),
        "wrong type": (signed(_claims(victim.id, typ="api")), "token_invalid"),
        "no expiry": (signed({k: v for k, v in _claims(victim.id).items() if k != "exp"}), "token_invalid"),
        "not a JWT": ("abc.def.ghi", "token_invalid"),
    }


@pytest.mark.parametrize("method,path,body", JWT_ROUTES, ids=[f"{m} {p}" for m, p, _ in JWT_ROUTES])
def test_bad_dashboard_tokens_are_401(
    http: httpx.Client,
    merchants: tuple[Merchant, Merchant],
    method: str,
    path: str,
    body: dict[str, Any] | None,
) -> None:
    victim, attacker = merchants
    for name, (token, code) in _bad_tokens(victim, attacker).items():
        response = http.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, (name, response.text)
        assert_error(response, 401, "authentication_error", code)
        signature = token.split(".")[-1]
        assert token not in response.text and (len(signature) < 8 or signature not in response.text)
    # The victim's profile and keys did not change, and the genuine tokens still work.
    me = http.get("/api/v1/merchants/me", headers=victim.jwt)
    assert me.status_code == 200 and me.json()["business_name"] == "Acme"
    assert http.get(f"{API}/keys", headers=attacker.jwt).status_code == 200


def test_a_validly_signed_token_for_no_merchant_is_401(http: httpx.Client) -> None:
    """A token that verifies but names a merchant that does not exist (deleted, or from another deployment
    sharing the key) must not reach the data layer as if it were a merchant."""
    token = jwt.encode(_claims(f"acct_{'z' * 24}"), TEST_JWT_SIGNING_KEY, algorithm="HS256")
    headers = {"Authorization": f"Bearer {token}"}
    for method, path, body in JWT_ROUTES:
        response = http.request(method, path, json=body, headers=headers)
        assert_error(response, 401, "authentication_error", "token_invalid")
