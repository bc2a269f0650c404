"""The core's Redis client: one bounded pool that queues a burst instead of failing it, to one Redis or to
the master a Redis Sentinel names.

redis-py 8 caps a plain pool at 100 connections and raises `MaxConnectionsError` on the 101st call,
at once. A sweep that drains thousands of actors (each taking and releasing its lease) can pass that
for a moment, and a lease call that fails there defers real work. A blocking pool of a known size
makes the burst wait briefly for a free connection, as the PostgreSQL pool does, and still fails
within `wait_seconds` when Redis is truly gone.

With REDIS_SENTINELS the same blocking pool asks Sentinel for the master before each new connection
(redis-py's `SentinelConnectionPool`, whose own base is the non-blocking pool): after a failover the
connections to the old master fail, are dropped, and the next ones go to the master Sentinel promoted.
Leases written to the old master just before it died may be missing on the new one (replication is
asynchronous); a second owner can then take an entity for a moment, and the fence in PostgreSQL keeps
its stale owner from writing (DESIGN §8).
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import parse_url
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

CALL_TIMEOUT_SECONDS = 2.0


class BlockingSentinelPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """Sentinel's master discovery with the blocking pool's bounded wait for a free connection.

    The method order puts SentinelConnectionPool's address handling (`get_master_address`,
    `owns_connection`, `reset`) before BlockingConnectionPool's `get_connection`/`release`.
    """


def sentinel_client(
    url: str,
    sentinels: tuple[tuple[str, int], ...],
    service: str,
    *,
    pool_class: type[SentinelConnectionPool] = BlockingSentinelPool,
    **pool_kwargs: Any,
) -> aioredis.Redis:
    """A client of `service`'s master; `url` gives only the database index and credentials."""
    parsed = parse_url(url)
    credentials: dict[str, Any] = {
        k: parsed[k] for k in ("db", "username", "password") if parsed.get(k) is not None
    }
    timeouts = {k: v for k, v in pool_kwargs.items() if k.startswith("socket_")}
    # Sentinel itself needs no credentials of the data nodes; its calls take the same bounded waits.
    manager = Sentinel(list(sentinels), sentinel_kwargs=timeouts)
    client: aioredis.Redis = manager.master_for(
        service, connection_pool_class=pool_class, **credentials, **pool_kwargs
    )
    return client


def connect_redis(
    url: str,
    *,
    max_connections: int,
    wait_seconds: float = CALL_TIMEOUT_SECONDS,
    sentinels: tuple[tuple[str, int], ...] = (),
    service: str = "",
) -> aioredis.Redis:
    options: dict[str, Any] = {
        "max_connections": max_connections,
        "timeout": wait_seconds,
        "socket_timeout": CALL_TIMEOUT_SECONDS,
        "socket_connect_timeout": CALL_TIMEOUT_SECONDS,
        "health_check_interval": 10,
    }
    if sentinels:
        return sentinel_client(url, sentinels, service, **options)
    pool = aioredis.BlockingConnectionPool.from_url(url, **options)
    return aioredis.Redis.from_pool(pool)


async def close_redis(client: aioredis.Redis) -> None:
    """Closes the client's pool and, for a Sentinel client, its connections to the sentinels."""
    await client.aclose()
    manager = getattr(client.connection_pool, "sentinel_manager", None)
    if isinstance(manager, Sentinel):
        await manager.aclose()
