"""The gateway's Redis client to the master a Redis Sentinel names (REDIS_SENTINELS), with the bounded
blocking pool the plain client has.

The gateway never imports the core, so this mirrors core_server/locking/redis_client.py: redis-py's
`SentinelConnectionPool` asks Sentinel for the master before each new connection and drops the ones to
an old master; its base is the non-blocking pool, which fails the 101st concurrent call at once, so the
blocking pool's `get_connection` is mixed in. After a failover the rate-limit counters restart on the new
master (at most a second's window is lost) and the cached API keys are asked of the core again.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import parse_url
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool


class BlockingSentinelPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """Sentinel's master discovery (first in the method order) with the blocking pool's bounded wait."""


def sentinel_client(
    url: str, sentinels: tuple[tuple[str, int], ...], service: str, **pool_kwargs: Any
) -> aioredis.Redis:
    """A client of `service`'s master; `url` gives only the database index and credentials."""
    parsed = parse_url(url)
    credentials: dict[str, Any] = {
        k: parsed[k] for k in ("db", "username", "password") if parsed.get(k) is not None
    }
    timeouts = {k: v for k, v in pool_kwargs.items() if k.startswith("socket_")}
    manager = Sentinel(list(sentinels), sentinel_kwargs=timeouts)
    client: aioredis.Redis = manager.master_for(
        service, connection_pool_class=BlockingSentinelPool, **credentials, **pool_kwargs
    )
    return client


async def close_redis(client: aioredis.Redis) -> None:
    """Closes the client's pool and, for a Sentinel client, its connections to the sentinels."""
    await client.aclose()
    manager = getattr(client.connection_pool, "sentinel_manager", None)
    if isinstance(manager, Sentinel):
        await manager.aclose()
