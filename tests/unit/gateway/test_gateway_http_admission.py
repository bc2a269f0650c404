"""Order and outcome of the checks before an operation: auth, rate limit, Service-Version, errors' headers."""

from __future__ import annotations

import time

import grpc
import jwt
from connect.v1 import api_key_pb2, charge_service_pb2, common_pb2

from http_gateway.pipeline.rate_limit import RateLimiter
from tests.support.core_shapes import charge_with_id
from tests.unit.gateway.gateway_fakes import SIGNING_KEY, authenticates, rpc_error

SECRET = {"Authorization": "Bearer sk_test_" + "a" * 32}


def _ok_get(core) -> None:
    response = charge_service_pb2.GetChargeResponse(charge=charge_with_id("ch_1"))
    core.charges.GetCharge.by_default(response)


def _error(r) -> tuple[int, str, str]:
    return r.status_code, r.json()["error"]["type"], r.json()["error"]["code"]


def _dashboard_token() -> str:
    now = int(time.time())
    claims = {"sub": "acct_1", "iat": now, "exp": now + 600, "iss": "payment-connect", "typ": "merchant"}
    return jwt.encode(claims, SIGNING_KEY, algorithm="HS256")


async def test_missing_key_is_401_with_rate_limit_headers(client, core):
    r = await client.get("/v1/charges/ch_1")
    assert _error(r) == (401, "authentication_error", "api_key_missing")
    assert r.headers["X-RateLimit-Limit"] == "25"
    assert core.api_keys.AuthenticateApiKey.calls == []


async def test_revoked_key_is_401_api_key_revoked(client, core):
    core.api_keys.AuthenticateApiKey.raises(
        rpc_error(
            grpc.StatusCode.UNAUTHENTICATED,
            "This API key was revoked.",
            reason="api_key_revoked",
            type="authentication_error",
        )
    )
    r = await client.get("/v1/charges/ch_1", headers=SECRET)
    assert (r.status_code, r.json()["error"]["code"]) == (401, "api_key_revoked")


async def test_publishable_key_is_403(client, core):
    authenticates(core, kind=api_key_pb2.API_KEY_KIND_PUBLISHABLE)
    r = await client.get("/v1/charges/ch_1", headers={"Authorization": "Bearer pk_test_" + "a" * 32})
    assert _error(r) == (403, "authorization_error", "secret_key_required")
    assert core.charges.GetCharge.calls == []


async def test_jwt_on_an_api_key_route_is_401(client, core):
    r = await client.get("/v1/charges/ch_1", headers={"Authorization": f"Bearer {_dashboard_token()}"})
    assert r.status_code == 401
    assert core.api_keys.AuthenticateApiKey.calls == []


async def test_api_key_on_a_jwt_route_is_401(client, core):
    r = await client.get("/api/v1/connect/keys", headers=SECRET)
    assert (r.status_code, r.json()["error"]["type"]) == (401, "authentication_error")


async def test_live_key_uses_the_live_limit_and_its_own_counter(client, core, redis):
    authenticates(core, environment=common_pb2.ENVIRONMENT_LIVE)
    _ok_get(core)
    r = await client.get("/v1/charges/ch_1", headers={"Authorization": "Bearer sk_live_" + "a" * 32})
    assert r.headers["X-RateLimit-Limit"] == "100"
    assert any(key.startswith("pc:rl:acct_test:live:") for key in redis.counts)


async def test_over_the_limit_is_429_with_retry_after(app, client, core, redis):
    _ok_get(core)
    app.ctx.rate_limiter = RateLimiter(redis, "pc", clock=lambda: 1_700_000_000.25)
    statuses = []
    for _ in range(27):
        r = await client.get("/v1/charges/ch_1", headers=SECRET)
        statuses.append(r.status_code)
    assert statuses == [200] * 25 + [429, 429]
    assert r.json()["error"]["type"] == "rate_limit_error"
    assert r.headers["Retry-After"] == "1"
    assert (r.headers["X-RateLimit-Remaining"], r.headers["X-RateLimit-Reset"]) == ("0", "1700000001")
    assert len(core.charges.GetCharge.calls) == 25


async def test_all_test_keys_of_a_merchant_share_one_counter(app, client, core, redis):
    _ok_get(core)
    app.ctx.rate_limiter = RateLimiter(redis, "pc", clock=lambda: 1_700_000_000.5)
    await client.get("/v1/charges/ch_1", headers={"Authorization": "Bearer sk_test_" + "a" * 32})
    r = await client.get("/v1/charges/ch_1", headers={"Authorization": "Bearer sk_test_" + "b" * 32})
    assert r.headers["X-RateLimit-Remaining"] == "23"
    assert redis.counts == {"pc:rl:acct_test:test:1700000000": 2}


async def test_bad_credentials_count_against_the_client_address(client, redis):
    r = await client.get("/v1/charges/ch_1", headers={"Authorization": "Bearer nonsense"})
    assert r.status_code == 401
    assert [k.rsplit(":", 1)[0] for k in redis.counts] == ["pc:rl:ip:203.0.113.9"]


async def test_redis_down_still_answers_with_rate_limit_headers_counted_locally(client, core, redis):
    _ok_get(core)
    redis.down = True
    r = await client.get("/v1/charges/ch_1", headers=SECRET)
    assert r.status_code == 200
    assert r.headers["X-RateLimit-Limit"] == "25"
    assert int(r.headers["X-RateLimit-Remaining"]) < 25
    assert redis.counts == {}


async def test_service_version_is_echoed_and_validated(client, core):
    _ok_get(core)
    r = await client.get("/v1/charges/ch_1", headers={**SECRET, "Service-Version": "2024-11-01"})
    assert r.headers["Service-Version"] == "2024-11-01"
    r = await client.get("/v1/charges/ch_1", headers={**SECRET, "Service-Version": "2020-01-01"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "api_version_invalid")
    assert r.json()["error"]["param"] == "Service-Version"


async def test_core_down_is_503_without_internals(client, core):
    down = rpc_error(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; ipv4:10.0.0.1")
    core.charges.GetCharge.raises(down)
    r = await client.get("/v1/charges/ch_1", headers=SECRET)
    assert r.status_code == 503
    assert "10.0.0.1" not in r.text
    assert len(core.charges.GetCharge.calls) == 2  # a read is retried once


async def test_unexpected_gateway_failure_is_a_500_envelope(client, core):
    core.charges.GetCharge.raises(RuntimeError("boom: internal detail"))
    r = await client.get("/v1/charges/ch_1", headers=SECRET)
    assert r.status_code == 500
    assert r.json()["error"]["type"] == "api_error"
    assert "boom" not in r.text and "Traceback" not in r.text
    assert r.headers["Request-Id"].startswith("req_")


async def test_unknown_url_and_wrong_method(client):
    r = await client.get("/v1/nothing-here")
    assert (r.status_code, r.json()["error"]["type"]) == (404, "resource_not_found")
    r = await client.delete("/v1/charges", headers=SECRET)
    assert (r.status_code, r.json()["error"]["type"]) == (405, "invalid_request_error")


async def test_invalid_json_body_is_400_envelope(client):
    r = await client.post("/v1/charges", content=b"{oops", headers=SECRET)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "parameter_invalid")


async def test_request_ids_differ_per_request(client):
    ids = {(await client.get("/healthz")).headers["Request-Id"] for _ in range(3)}
    assert len(ids) == 3
