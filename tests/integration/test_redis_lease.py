"""Integration tests for RedisLease on a real Redis: ownership, expiry, bounded waits, contention."""

from __future__ import annotations

import asyncio
import os
import random
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from core_server.actors import ActorRegistry, EntityActor, EntityLease, LeaseFactory
from core_server.locking import LockServiceUnavailable, RedisLease, RedisLeaseFactory

pytestmark = pytest.mark.integration


@pytest.fixture
async def redis() -> AsyncIterator[aioredis.Redis]:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    client = aioredis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
    yield client
    await client.aclose()


@pytest.fixture
async def namespace(redis: aioredis.Redis) -> AsyncIterator[str]:
    ns = f"test-lease-{uuid.uuid4().hex}"
    yield ns
    keys = [key async for key in redis.scan_iter(match=f"{ns}:*")]
    if keys:
        await redis.delete(*keys)


def lease(redis: aioredis.Redis, namespace: str, owner: str, ttl_ms: int = 5_000) -> RedisLease:
    return RedisLeaseFactory(redis, namespace=namespace, ttl_ms=ttl_ms, owner=owner)("charge", "ch_1")


async def test_acquire_renew_release_round_trip(redis: aioredis.Redis, namespace: str) -> None:
    mine = lease(redis, namespace, "core-a", ttl_ms=2_000)
    assert mine.key == f"{namespace}:lease:charge:ch_1"
    assert mine.token.startswith("core-a:")
    assert await mine.acquire(0)
    assert await redis.get(mine.key) == mine.token.encode()
    await redis.pexpire(mine.key, 100)
    assert await mine.renew()
    assert 1_500 < await redis.pttl(mine.key) <= 2_000  # renew resets the TTL, it does not add to it
    await mine.release()
    assert await redis.exists(mine.key) == 0


async def test_a_second_owner_cannot_acquire_while_held_and_gets_it_after_release(
    redis: aioredis.Redis, namespace: str
) -> None:
    first, second = lease(redis, namespace, "core-a"), lease(redis, namespace, "core-b")
    assert await first.acquire(0)
    assert not await second.acquire(0.03)
    waiting = asyncio.create_task(second.acquire(1.0))
    await asyncio.sleep(0.02)
    await first.release()
    assert await waiting  # picked up by polling, well before the 1 s wait ran out
    assert await redis.get(second.key) == second.token.encode()


async def test_expiry_lets_another_owner_in_and_the_old_owner_cannot_renew(
    redis: aioredis.Redis, namespace: str
) -> None:
    old, new = lease(redis, namespace, "core-a", ttl_ms=50), lease(redis, namespace, "core-b")
    assert await old.acquire(0)
    assert await new.acquire(0.5)  # waits out the 50 ms TTL
    assert not await old.renew()
    await old.release()  # no-op: the key is the new owner's now
    assert await redis.get(new.key) == new.token.encode()


async def test_renew_after_expiry_returns_false(redis: aioredis.Redis, namespace: str) -> None:
    mine = lease(redis, namespace, "core-a", ttl_ms=30)
    assert await mine.acquire(0)
    await asyncio.sleep(0.06)
    assert not await mine.renew()
    assert await redis.exists(mine.key) == 0  # renewal never resurrects an expired lease


async def test_release_and_renew_by_a_non_owner_are_no_ops(redis: aioredis.Redis, namespace: str) -> None:
    holder, intruder = lease(redis, namespace, "core-a"), lease(redis, namespace, "core-b")
    assert await holder.acquire(0)
    await intruder.release()
    assert not await intruder.renew()
    assert await redis.get(holder.key) == holder.token.encode()
    assert await holder.renew()


async def test_acquire_wait_is_bounded(redis: aioredis.Redis, namespace: str) -> None:
    holder, waiter = lease(redis, namespace, "core-a"), lease(redis, namespace, "core-b")
    assert await holder.acquire(0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert not await waiter.acquire(0.1)
    assert 0.1 <= loop.time() - started < 0.5


async def test_a_cancelled_wait_for_a_held_lease_stops_at_once(redis: aioredis.Redis, namespace: str) -> None:
    """A shutdown cancels the waits of actors that will never run: each must end at once. redis-py on
    Python 3.11 swallows a cancel that lands as a command completes (about one in three, measured), so
    without RedisLease's guard some waits polled on for their whole 5 s; 150 cancels at random moments
    of the polling meet that window several times."""
    holder, waiter = lease(redis, namespace, "core-a"), lease(redis, namespace, "core-b")
    assert await holder.acquire(0)
    rng = random.Random(7)
    for _ in range(150):
        waiting = asyncio.ensure_future(waiter.acquire(5.0))
        await asyncio.sleep(rng.uniform(0.0, 0.03))
        waiting.cancel()
        done, _ = await asyncio.wait({waiting}, timeout=1.0)
        assert done == {waiting} and waiting.cancelled(), "a cancelled acquire kept polling"


async def test_a_cancel_the_redis_client_swallows_still_stops_the_wait() -> None:
    """The same, made certain: a client whose every command swallows the cancel, as redis-py's can."""

    class SwallowingClient:
        def register_script(self, script: str) -> Any:
            return script

        async def set(self, *args: Any, **kwargs: Any) -> bool:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                return False  # what asyncio.wait_for does on 3.11 when the command completes meanwhile
            return False

    waiter = RedisLease(SwallowingClient(), "k", ttl_ms=1_000, owner="core-b")  # type: ignore[arg-type]
    waiting = asyncio.ensure_future(waiter.acquire(5.0))
    await asyncio.sleep(0.02)  # inside the first SET
    waiting.cancel()
    done, _ = await asyncio.wait({waiting}, timeout=1.0)
    assert done == {waiting} and waiting.cancelled()


async def test_a_redis_call_that_hangs_raises_lock_service_unavailable() -> None:
    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # swallow everything until the client hangs up
        writer.close()

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = aioredis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1.0)
    try:
        silent = RedisLease(client, "k", ttl_ms=1_000, owner="core-a", call_timeout=0.05)
        with pytest.raises(LockServiceUnavailable) as raised:
            await silent.acquire(0)
        assert isinstance(raised.value.__cause__, TimeoutError)
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()


async def test_every_lease_call_turns_a_refused_connection_into_lock_service_unavailable() -> None:
    with socket.socket() as probe:  # a port nobody listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # No retries: redis-py would otherwise back off and retry until the lease's call timeout fires.
    client = aioredis.Redis(
        host="127.0.0.1", port=port, socket_connect_timeout=1.0, retry=Retry(NoBackoff(), 0)
    )
    try:
        gone = RedisLease(client, "k", ttl_ms=1_000, owner="core-a", call_timeout=2.0)
        for call in (lambda: gone.acquire(0), gone.renew, gone.release):
            with pytest.raises(LockServiceUnavailable) as raised:
                await call()
            assert isinstance(raised.value.__cause__, RedisConnectionError)
    finally:
        await client.aclose()


class CountingActor(EntityActor):
    """Records how many turns run at once across every registry sharing `state`."""

    def __init__(self, entity_id: str, lease: EntityLease, state: dict[str, int]) -> None:
        super().__init__(entity_id, lease, acquire_wait=2.0)
        self.state = state

    async def receive(self, message: Any) -> Any:
        self.state["running"] += 1
        self.state["peak"] = max(self.state["peak"], self.state["running"])
        await asyncio.sleep(0.002)  # the other "process" is polling for the lease here
        self.state["running"] -= 1
        return message


async def test_two_registries_sharing_redis_never_serve_one_entity_at_once(
    redis: aioredis.Redis, namespace: str
) -> None:
    state = {"running": 0, "peak": 0}

    def registry(owner: str) -> ActorRegistry:
        leases: LeaseFactory = RedisLeaseFactory(redis, namespace=namespace, ttl_ms=1_000, owner=owner)
        factory: Callable[[str], EntityActor] = lambda entity_id: CountingActor(  # noqa: E731
            entity_id, leases("charge", entity_id), state
        )
        return ActorRegistry(factory, idle_timeout=0.01, name=owner)

    core_a, core_b = registry("core-a"), registry("core-b")
    asks: list[Awaitable[Any]] = [
        reg.ask("ch_1", i, timeout=3.0) for i in range(10) for reg in (core_a, core_b)
    ]
    assert sorted(await asyncio.gather(*asks)) == sorted(list(range(10)) * 2)
    assert state["peak"] == 1
    await core_a.stop_all(grace=1.0)
    await core_b.stop_all(grace=1.0)
    assert [key async for key in redis.scan_iter(match=f"{namespace}:*")] == []


def lease_with_liveness(
    redis: aioredis.Redis, namespace: str, owner: str, lapsed: set[str], asked: list[str]
) -> RedisLease:
    async def holder_lapsed(process: str) -> bool:
        asked.append(process)
        return process in lapsed

    factory = RedisLeaseFactory(
        redis, namespace=namespace, ttl_ms=10_000, owner=owner, holder_lapsed=holder_lapsed
    )
    return factory("charge", "ch_1")


async def test_a_lease_of_a_core_whose_heartbeat_lapsed_is_taken_over_at_once(
    redis: aioredis.Redis, namespace: str
) -> None:
    """DESIGN §10.9: a dead core's leases go with its heartbeat, not after their 10 s TTL."""
    dead = lease(redis, namespace, "core-dead", ttl_ms=10_000)
    assert await dead.acquire(0)
    asked: list[str] = []
    mine = lease_with_liveness(redis, namespace, "core-b", {"core-dead"}, asked)
    started = asyncio.get_running_loop().time()
    assert await mine.acquire(5.0)
    assert asyncio.get_running_loop().time() - started < 1.0
    assert asked == ["core-dead"]
    assert await redis.get(mine.key) == mine.token.encode()
    assert 9_000 < await redis.pttl(mine.key) <= 10_000
    assert not await dead.renew()  # the lapsed holder has lost it
    await dead.release()  # and cannot release the new owner's lease
    assert await redis.get(mine.key) == mine.token.encode()


async def test_a_lease_of_a_live_core_is_waited_for_not_taken(redis: aioredis.Redis, namespace: str) -> None:
    alive = lease(redis, namespace, "core-alive", ttl_ms=10_000)
    assert await alive.acquire(0)
    asked: list[str] = []
    mine = lease_with_liveness(redis, namespace, "core-b", {"core-dead"}, asked)
    assert not await mine.acquire(0.2)
    assert asked and set(asked) == {"core-alive"}
    assert await redis.get(alive.key) == alive.token.encode()
    assert await alive.renew()


async def test_a_lapsed_holder_that_renewed_meanwhile_keeps_its_lease(
    redis: aioredis.Redis, namespace: str
) -> None:
    """The takeover compares the exact token found: a lease that changed hands meanwhile is left alone."""
    dead = lease(redis, namespace, "core-dead", ttl_ms=10_000)
    assert await dead.acquire(0)
    successor = lease(redis, namespace, "core-c", ttl_ms=10_000)

    async def lapsed_but_replaced(process: str) -> bool:
        # Between our GET and the takeover, another core took the lease over first.
        await redis.set(successor.key, successor.token, px=10_000)
        return True

    mine = RedisLeaseFactory(
        redis, namespace=namespace, ttl_ms=10_000, owner="core-b", holder_lapsed=lapsed_but_replaced
    )("charge", "ch_1")
    assert not await mine.acquire(0)
    assert await redis.get(mine.key) == successor.token.encode()
