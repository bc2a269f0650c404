"""Rate-limit header math and counting (Redis itself is covered in tests/integration/gateway)."""

from __future__ import annotations

import pytest

from http_gateway.errors import ApiError
from http_gateway.rate_limit import RateLimiter, decide
from tests.unit.gateway.gateway_fakes import FakeRedis


def test_remaining_counts_this_request():
    d = decide(count=1, limit=25, now=1_700_000_000.2)
    assert (d.allowed, d.remaining, d.reset, d.limit) == (True, 24, 1_700_000_001, 25)


def test_last_allowed_request_has_zero_remaining():
    d = decide(count=25, limit=25, now=1_700_000_000.9)
    assert d.allowed and d.remaining == 0


def test_over_the_limit_is_refused_and_remaining_never_negative():
    d = decide(count=40, limit=25, now=1_700_000_000.999)
    assert not d.allowed
    assert d.remaining == 0
    assert d.retry_after == 1


def test_refusal_is_429_with_headers_and_retry_after():
    err = decide(count=26, limit=25, now=1_700_000_000.5).error()
    assert (err.http_status, err.type) == (429, "rate_limit_error")
    assert err.headers["Retry-After"] == "1"
    assert err.headers["X-RateLimit-Remaining"] == "0"
    assert err.headers["X-RateLimit-Reset"] == "1700000001"


async def test_counter_key_is_namespaced_per_subject_and_second():
    redis = FakeRedis()
    limiter = RateLimiter(redis, "pc", clock=lambda: 1_700_000_000.5)  # type: ignore[arg-type]
    await limiter.hit("acct_1:test", 25)
    await limiter.hit("acct_1:test", 25)
    await limiter.hit("acct_1:live", 100)
    assert redis.counts == {"pc:rl:acct_1:test:1700000000": 2, "pc:rl:acct_1:live:1700000000": 1}


async def test_redis_down_is_503_not_a_hang():
    redis = FakeRedis()
    redis.down = True
    limiter = RateLimiter(redis, "pc")  # type: ignore[arg-type]
    with pytest.raises(ApiError) as caught:
        await limiter.hit("ip:1.2.3.4", 25)
    assert (caught.value.http_status, caught.value.type) == (503, "api_error")
