"""Rate-limit header math and counting (Redis itself is covered in tests/integration/gateway)."""

from __future__ import annotations

from http_gateway.pipeline.rate_limit import LocalFixedWindow, RateLimiter, RedisProbe, decide
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


class Clock:
    """A settable wall clock for the limiter (seconds since the epoch)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_local_window_counts_per_subject_and_second_with_the_same_headers():
    clock = Clock(1_700_000_000.2)
    local = LocalFixedWindow(clock)
    decisions = [local.hit("acct_1:test", 3) for _ in range(4)]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert decisions[-1].reset == 1_700_000_001
    assert decisions[-1].error().headers["Retry-After"] == "1"
    assert local.hit("acct_2:test", 3).remaining == 2  # another subject has its own count
    clock.now = 1_700_000_001.0  # a new window starts from zero
    assert local.hit("acct_1:test", 3) == decide(1, 3, 1_700_000_001.0)


def test_probe_backs_off_doubling_to_a_cap_and_resets_when_redis_answers():
    probe = RedisProbe()
    assert probe.should_try(100.0) and not probe.down
    probe.failed(100.0)
    assert probe.down
    assert not probe.should_try(100.4)
    assert probe.should_try(100.5)  # first probe after 0.5 s
    assert not probe.should_try(100.5)  # handed to one caller only
    probe.failed(100.5)
    assert not probe.should_try(101.4) and probe.should_try(101.5)  # then 1 s
    for _ in range(20):
        probe.failed(200.0)
    assert not probe.should_try(200.0 + RedisProbe.MAX_SECONDS - 0.1)
    assert probe.should_try(200.0 + RedisProbe.MAX_SECONDS)
    probe.answered()
    assert not probe.down and probe.should_try(200.0)


async def test_redis_down_falls_back_to_local_counting_and_back_to_redis():
    redis = FakeRedis()
    clock = Clock(1_700_000_000.1)
    limiter = RateLimiter(redis, "pc", clock=clock)  # type: ignore[arg-type]
    redis.down = True
    first = await limiter.hit("ip:1.2.3.4", 2)
    assert limiter.local and (first.allowed, first.remaining) == (True, 1)
    second = await limiter.hit("ip:1.2.3.4", 2)
    third = await limiter.hit("ip:1.2.3.4", 2)
    assert (second.allowed, third.allowed) == (True, False)  # the same limit, enforced in this process
    assert third.error().http_status == 429

    redis.down = False  # back, but not probed before the back-off ends
    clock.now += 0.3
    await limiter.hit("ip:1.2.3.4", 2)
    assert limiter.local and redis.counts == {}
    clock.now += 0.3  # 0.6 s after the failure: the probe reaches Redis and counting moves back there
    await limiter.hit("ip:1.2.3.4", 2)
    assert not limiter.local
    assert redis.counts == {"pc:rl:ip:1.2.3.4:1700000000": 1}
