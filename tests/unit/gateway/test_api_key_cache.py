"""The gateway's short-lived cache of resolved API keys: TTL, revocation through this gateway, bounds."""

from __future__ import annotations

import asyncio
import time

import grpc
import jwt
import pytest
from connect.v1 import api_key_pb2, charge_service_pb2, common_pb2
from connect.v1 import api_key_service_pb2 as keys_svc

from http_gateway.pipeline.api_key_cache import ApiKeyCache
from http_gateway.pipeline.auth import ApiCaller
from tests.support.core_shapes import api_key_message, charge_with_id
from tests.unit.gateway.gateway_fakes import SIGNING_KEY, rpc_error

SECRET = "sk_test_" + "c" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _caller(key_id: str = "key_1") -> ApiCaller:
    return ApiCaller("acct_1", common_pb2.ENVIRONMENT_TEST, api_key_pb2.API_KEY_KIND_SECRET, key_id)


def test_an_entry_lives_for_the_ttl_and_no_longer() -> None:
    clock = Clock()
    cache = ApiKeyCache(5.0, clock=clock)
    cache.put(SECRET, _caller())
    clock.now += 4.9
    assert cache.get(SECRET) == _caller()
    clock.now += 0.1
    assert cache.get(SECRET) is None
    assert len(cache) == 0


def test_entries_are_keyed_by_a_digest_never_the_key() -> None:
    cache = ApiKeyCache(5.0)
    cache.put(SECRET, _caller())
    assert cache.get("sk_test_" + "d" * 32) is None
    assert all(isinstance(k, bytes) and SECRET.encode() not in k for k in cache._entries)


def test_evicting_a_key_drops_each_of_its_entries_only() -> None:
    cache = ApiKeyCache(5.0)
    cache.put(SECRET, _caller("key_1"))
    cache.put("sk_test_" + "e" * 32, _caller("key_2"))
    assert cache.evict_key("key_1") == 1
    assert cache.get(SECRET) is None and cache.get("sk_test_" + "e" * 32) is not None


def test_zero_ttl_disables_the_cache_and_size_is_bounded() -> None:
    off = ApiKeyCache(0)
    off.put(SECRET, _caller())
    assert off.get(SECRET) is None and len(off) == 0
    small = ApiKeyCache(60.0, max_entries=3)
    for n in range(5):
        small.put(f"sk_test_{n:032d}", _caller())
    assert len(small) == 3
    assert small.get(f"sk_test_{0:032d}") is None and small.get(f"sk_test_{4:032d}") is not None


def _dashboard() -> dict[str, str]:
    now = int(time.time())
    claims = {"sub": "acct_test", "iat": now, "exp": now + 600, "iss": "payment-connect", "typ": "merchant"}
    return {"Authorization": f"Bearer {jwt.encode(claims, SIGNING_KEY, algorithm='HS256')}"}


async def test_one_core_lookup_serves_many_requests_until_the_key_is_revoked_here(client, core):
    core.charges.GetCharge.by_default(charge_service_pb2.GetChargeResponse(charge=charge_with_id("ch_1")))
    auth = {"Authorization": f"Bearer {SECRET}"}
    for _ in range(3):
        assert (await client.get("/v1/charges/ch_1", headers=auth)).status_code == 200
    assert len(core.api_keys.AuthenticateApiKey.calls) == 1
    revoked = api_key_message("key_1", revoked_at=9)
    core.api_keys.RevokeApiKey.returns(keys_svc.RevokeApiKeyResponse(api_key=revoked))
    assert (await client.delete("/v1/keys/key_1", headers=_dashboard())).status_code == 200
    assert (await client.get("/v1/charges/ch_1", headers=auth)).status_code == 200
    assert len(core.api_keys.AuthenticateApiKey.calls) == 2  # asked the core again after the revoke


async def test_refused_keys_are_never_cached(client, core):
    core.api_keys.AuthenticateApiKey.raises(
        rpc_error(
            grpc.StatusCode.UNAUTHENTICATED,
            "Invalid API key provided.",
            reason="api_key_invalid",
            type="authentication_error",
        )
    )
    auth = {"Authorization": f"Bearer {SECRET}"}
    for _ in range(2):
        assert (await client.get("/v1/charges/ch_1", headers=auth)).status_code == 401
    assert len(core.api_keys.AuthenticateApiKey.calls) == 2


async def test_requests_that_miss_together_share_one_lookup() -> None:
    """An entry expiring under load sent every busy connection to the core at once."""
    cache = ApiKeyCache(5.0)
    calls = 0
    release = asyncio.Event()

    async def lookup() -> ApiCaller:
        nonlocal calls
        calls += 1
        await release.wait()
        return _caller()

    waiters = [asyncio.create_task(cache.resolve(SECRET, lookup)) for _ in range(20)]
    await asyncio.sleep(0)
    waiters[0].cancel()  # the first request goes away: the others still get the answer
    release.set()
    results = await asyncio.gather(*waiters, return_exceptions=True)
    assert calls == 1
    assert isinstance(results[0], asyncio.CancelledError) and results[1:] == [_caller()] * 19
    assert await cache.resolve(SECRET, lookup) == _caller() and calls == 1  # now cached


async def test_a_failed_lookup_reaches_every_waiter_and_is_not_cached() -> None:
    cache = ApiKeyCache(5.0)
    calls = 0

    async def revoked() -> ApiCaller:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0)
        raise PermissionError("api_key_revoked")

    results = await asyncio.gather(
        *(cache.resolve(SECRET, revoked) for _ in range(5)), return_exceptions=True
    )
    assert calls == 1 and all(isinstance(r, PermissionError) for r in results)
    with pytest.raises(PermissionError):
        await cache.resolve(SECRET, revoked)
    assert calls == 2 and len(cache) == 0
