"""RateLimiter against the real Redis (REDIS_URL, default redis://127.0.0.1:6379/0), in its own namespace."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from http_gateway.pipeline.rate_limit import RateLimiter, connect_redis

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
async def namespace() -> AsyncIterator[tuple[object, str]]:
    client = connect_redis(REDIS_URL)
    ns = f"test-gw-{uuid.uuid4().hex[:12]}"  # never touches keys this test did not create
    try:
        yield client, ns
    finally:
        keys = [k async for k in client.scan_iter(match=f"{ns}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_counts_per_subject_and_second_with_expiry(namespace):
    client, ns = namespace
    limiter = RateLimiter(client, ns, clock=lambda: 1_700_000_000.4)
    first = await limiter.hit("acct_1:test", 3)
    second = await limiter.hit("acct_1:test", 3)
    other = await limiter.hit("acct_1:live", 3)
    assert (first.remaining, second.remaining, other.remaining) == (2, 1, 2)
    key = f"{ns}:rl:acct_1:test:1700000000"
    assert int(await client.get(key)) == 2
    assert 0 < await client.pttl(key) <= 2000  # every counter expires on its own


async def test_limit_is_enforced_and_remaining_never_negative(namespace):
    client, ns = namespace
    limiter = RateLimiter(client, ns, clock=lambda: 1_700_000_001.9)
    decisions = [await limiter.hit("ip:203.0.113.1", 2) for _ in range(4)]
    assert [d.allowed for d in decisions] == [True, True, False, False]
    assert [d.remaining for d in decisions] == [1, 0, 0, 0]
    assert decisions[-1].reset == 1_700_000_002


async def test_concurrent_hits_are_counted_atomically(namespace):
    client, ns = namespace
    limiter = RateLimiter(client, ns, clock=lambda: 1_700_000_003.0)
    decisions = await asyncio.gather(*(limiter.hit("acct_9:live", 100) for _ in range(60)))
    assert sorted(d.remaining for d in decisions) == list(range(40, 100))


async def test_a_new_second_starts_a_new_window(namespace):
    client, ns = namespace
    now = [1_700_000_010.9]
    limiter = RateLimiter(client, ns, clock=lambda: now[0])
    assert not [await limiter.hit("s", 1) for _ in range(2)][-1].allowed
    now[0] = 1_700_000_011.0
    assert (await limiter.hit("s", 1)).allowed


async def test_unreachable_redis_falls_back_to_local_counting_within_a_bounded_time():
    client = connect_redis("redis://127.0.0.1:1/0")  # nothing listens on port 1
    limiter = RateLimiter(client, "pc", clock=lambda: 1_700_000_000.5)  # one window, no probe due
    started = time.monotonic()
    try:
        first = await limiter.hit("s", 1)
        second = await limiter.hit("s", 1)  # before the next probe: counted here, no Redis call
    finally:
        await client.aclose()
    assert limiter.local
    assert (first.allowed, second.allowed) == (True, False)
    assert time.monotonic() - started < 3
