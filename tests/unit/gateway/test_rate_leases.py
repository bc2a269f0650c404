"""Rate-limit positions leased in batches: sizes, handing out, and what the limiter asks Redis for."""

from __future__ import annotations

import asyncio
from typing import Any

from http_gateway.pipeline.rate_leases import LEASE_MAX, WindowLease, lease_size
from http_gateway.pipeline.rate_limit import RateLimiter
from tests.unit.gateway.gateway_fakes import FakeRedis


def test_a_quiet_subject_leases_one_position_per_request():
    assert lease_size(limit=100, previous_demand=0, waiting=1) == 1
    assert lease_size(limit=100, previous_demand=15, waiting=1) == 1


def test_a_busy_subject_leases_a_batch_capped_by_a_tenth_of_its_limit_and_lease_max():
    assert lease_size(limit=100, previous_demand=800, waiting=1) == 10
    assert lease_size(limit=10**9, previous_demand=320, waiting=1) == 320 // 16
    assert lease_size(limit=10**9, previous_demand=10**6, waiting=1) == LEASE_MAX
    assert lease_size(limit=5, previous_demand=10**6, waiting=1) == 1


def test_every_waiting_request_is_covered_by_the_next_lease():
    assert lease_size(limit=100, previous_demand=0, waiting=7) == 7


def test_positions_are_handed_out_in_order_then_none():
    window = WindowLease(window=10)
    window.grant(total=12, size=3)  # another gateway took 1…9
    assert [window.take(), window.take(), window.take(), window.take()] == [10, 11, 12, None]
    assert window.taken == 3 and not window.exhausted(limit=13) and window.exhausted(limit=12)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class CountingRedis(FakeRedis):
    """FakeRedis that also counts the script calls (round trips)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def register_script(self, script: str) -> Any:
        run = super().register_script(script)

        async def counted(keys: list[str], args: list[Any]) -> int:
            self.calls += 1
            return int(await run(keys=keys, args=args))

        return counted


async def test_after_a_busy_window_the_limiter_leases_batches_and_counts_headers_per_request():
    redis = CountingRedis()
    clock = Clock(1_700_000_000.1)
    limiter = RateLimiter(redis, "pc", clock=clock)  # type: ignore[arg-type]
    for _ in range(320):
        await limiter.hit("acct_1:test", 1000)
    assert redis.counts["pc:rl:acct_1:test:1700000000"] == 320 == redis.calls  # one per request
    clock.now += 1
    decisions = [await limiter.hit("acct_1:test", 1000) for _ in range(100)]
    assert redis.calls - 320 == 5  # batches of 320 // 16 = 20 positions
    assert [d.remaining for d in decisions] == list(range(999, 899, -1))  # still per request
    assert redis.counts["pc:rl:acct_1:test:1700000001"] == 100


async def test_the_limit_is_refused_without_redis_once_the_window_is_full():
    redis = FakeRedis()
    limiter = RateLimiter(redis, "pc", clock=lambda: 1_700_000_000.5)  # type: ignore[arg-type]
    decisions = [await limiter.hit("ip:1.2.3.4", 3) for _ in range(6)]
    assert [d.allowed for d in decisions] == [True, True, True, False, False, False]
    assert decisions[-1].error().http_status == 429 and decisions[-1].remaining == 0
    assert redis.counts == {"pc:rl:ip:1.2.3.4:1700000000": 3}  # the refusals asked Redis nothing


async def test_concurrent_requests_share_one_lease_in_flight_and_get_distinct_positions():
    redis = FakeRedis()
    limiter = RateLimiter(redis, "pc", clock=lambda: 1_700_000_000.5)  # type: ignore[arg-type]
    decisions = await asyncio.gather(*(limiter.hit("acct_1:live", 100) for _ in range(30)))
    assert sorted(d.remaining for d in decisions) == list(range(70, 100))
    assert redis.counts == {"pc:rl:acct_1:live:1700000000": 30}  # nothing leased and left unused
