"""The core's and the gateway's Redis clients queue a burst beyond their pool instead of failing it.

redis-py 8 fails the call beyond a plain pool's 100 connections at once (`MaxConnectionsError`); a
sweep over a thousand actors met that in CI and deferred its work. Each call below holds its
connection for 50 ms (a BLPOP on an empty list), so 24 calls on 4 connections must wait their turn.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis.asyncio as aioredis

from core_server.locking.redis_client import close_redis as close_core_redis
from core_server.locking.redis_client import connect_redis as connect_core_redis
from http_gateway.pipeline.rate_limit import connect_redis as connect_gateway_redis
from http_gateway.pipeline.redis_sentinel import close_redis as close_gateway_redis
from tests.support.redis_sentinel import SERVICE, Sentinels, redis_with_sentinels

pytestmark = pytest.mark.integration

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.mark.parametrize(
    "connect",
    [
        lambda: connect_core_redis(REDIS_URL, max_connections=4),
        lambda: connect_gateway_redis(REDIS_URL, max_connections=4),
    ],
    ids=["core", "gateway"],
)
async def test_a_burst_six_times_the_pool_waits_for_connections_and_all_of_it_succeeds(
    connect: Callable[[], aioredis.Redis],
) -> None:
    client = connect()
    empty = f"test-pool-{uuid.uuid4().hex}"
    try:
        answers = await asyncio.gather(*(client.blpop([empty], timeout=0.05) for _ in range(24)))
    finally:
        await client.aclose()
    assert answers == [None] * 24


@pytest.fixture(scope="module")
def sentinel() -> Iterator[Sentinels]:
    with redis_with_sentinels(sentinel_count=1) as group:
        yield group


@pytest.mark.parametrize("side", ["core", "gateway"])
async def test_through_sentinel_the_pool_blocks_the_same_way(sentinel: Sentinels, side: str) -> None:
    """redis-py's SentinelConnectionPool is a plain pool underneath: without the blocking pool mixed in,
    the fifth concurrent call here would fail at once."""
    addresses = tuple(("127.0.0.1", port) for port in sentinel.ports)
    url = "redis://sentinel-managed/0"  # only the database index counts
    if side == "core":
        client = connect_core_redis(url, max_connections=4, sentinels=addresses, service=SERVICE)
    else:
        client = connect_gateway_redis(url, max_connections=4, sentinels=addresses, service=SERVICE)
    empty = f"test-pool-{uuid.uuid4().hex}"
    try:
        answers = await asyncio.gather(*(client.blpop([empty], timeout=0.05) for _ in range(24)))
        await client.set(empty, "1", px=1000)
        written_to = client.connection_pool.master_address  # type: ignore[attr-defined]
    finally:
        await (close_core_redis if side == "core" else close_gateway_redis)(client)
    assert answers == [None] * 24
    assert written_to == ("127.0.0.1", sentinel.master.port)
    assert sentinel.master.client().get(empty) == b"1"
