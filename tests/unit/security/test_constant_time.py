"""Every comparison against a secret goes through `hmac.compare_digest`, and secret keys are looked up by
digest.

A timing test of the comparison itself would be flaky on a shared machine; what can be pinned down is
that each check reaches the constant-time primitive with the secret-derived value, and that nothing
returns before it. `compare_digest` is wrapped by a recording spy that still does the real comparison.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import grpc
import jwt
import pytest

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Unauthenticated
from core_server.merchants.application.api_keys import ApiKeyService
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import hash_password, verify_password
from core_server.rpc.interceptors import AuthTokenInterceptor
from core_server.webhooks.domain.webhook_signature import generate_test_header, verify_signature
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.auth import verify_dashboard_token

SIGNING_KEY = "unit-signing-key-unit-signing-key-unit-signing-key"
WEBHOOK_SECRET = "whsec_abcdefghijklmnopqrstuvwxyz012345"


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """The arguments of every hmac.compare_digest call made during the test."""
    calls: list[tuple[Any, Any]] = []
    real: Callable[[Any, Any], bool] = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    return calls


def test_webhook_signatures_compare_every_candidate_in_constant_time(compared: list[tuple[Any, Any]]) -> None:
    payload = b'{"id": "evt_1"}'
    good = generate_test_header(payload, WEBHOOK_SECRET)
    timestamp = good.split(",")[0]
    header = f"{timestamp},v1={'0' * 64},{good.split(',')[1]},v1={'f' * 64}"
    assert verify_signature(payload, header, WEBHOOK_SECRET)
    assert len(compared) == 3  # no early exit at the matching second candidate
    compared.clear()
    assert not verify_signature(payload, f"{timestamp},v1={'0' * 64}", WEBHOOK_SECRET)
    assert len(compared) == 1


def test_passwords_compare_the_derived_key_in_constant_time(compared: list[tuple[Any, Any]]) -> None:
    stored = hash_password("correct horse battery")
    assert verify_password("correct horse battery", stored)
    assert not verify_password("wrong horse battery", stored)
    assert len(compared) == 2 and all(isinstance(a, str) and len(a) == 128 for a, _ in compared)


def test_dashboard_tokens_are_verified_with_a_constant_time_signature_check(
    compared: list[tuple[Any, Any]],
) -> None:
    now = int(time.time())
    claims = {"sub": "acct_1", "iss": "payment-connect", "typ": "merchant", "iat": now, "exp": now + 60}
    assert verify_dashboard_token(jwt.encode(claims, SIGNING_KEY, algorithm="HS256"), SIGNING_KEY) == "acct_1"
    assert len(compared) == 1
    forged = jwt.encode(claims, SIGNING_KEY + "x", algorithm="HS256")
    with pytest.raises(ApiError):
        verify_dashboard_token(forged, SIGNING_KEY)
    assert len(compared) == 2


@dataclass
class _Details:
    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


def test_the_core_auth_token_is_compared_in_constant_time(compared: list[tuple[Any, Any]]) -> None:
    interceptor = AuthTokenInterceptor("internal-token")
    passed: list[str] = []

    async def continuation(details: Any) -> grpc.RpcMethodHandler:
        passed.append(details.method)
        return grpc.unary_unary_rpc_method_handler(lambda request, context: None)

    async def run() -> None:
        method = "/connect.v1.ChargeService/GetCharge"
        await interceptor.intercept_service(
            continuation, _Details(method, (("authorization", "Bearer internal-token"),))
        )
        await interceptor.intercept_service(
            continuation, _Details(method, (("authorization", "Bearer guess"),))
        )

    asyncio.run(run())
    assert passed == ["/connect.v1.ChargeService/GetCharge"]
    assert len(compared) == 2


class _DigestOnlyKeys:
    """Answers lookups the way PgApiKeyRepository does: by the digest column, recording what was asked."""

    def __init__(self, secret_key: str) -> None:
        self.stored_digest = hashlib.sha256(secret_key.encode()).hexdigest()
        self.asked: list[str] = []

    async def find_by_secret_digest(self, digest: str) -> ApiKey | None:
        self.asked.append(digest)
        if digest != self.stored_digest:  # an index lookup of a digest, not a comparison with the key
            return None
        created = datetime(2026, 1, 1, tzinfo=UTC)
        return ApiKey("key_1", "acct_1", "", Environment.TEST, "pk_test_" + "p" * 32, "kkkk", created)


def test_secret_keys_are_looked_up_by_their_digest_only() -> None:
    secret = "sk_test_" + "k" * 32
    keys = _DigestOnlyKeys(secret)
    service = ApiKeyService(keys, clock=None)  # type: ignore[arg-type]
    resolved = asyncio.run(service.authenticate(secret))
    assert (resolved.merchant_id, resolved.kind) == ("acct_1", "secret")
    with pytest.raises(Unauthenticated):
        asyncio.run(service.authenticate("sk_test_" + "g" * 32))
    assert keys.asked == [keys.stored_digest, hashlib.sha256(("sk_test_" + "g" * 32).encode()).hexdigest()]
    assert all(secret not in asked for asked in keys.asked)
