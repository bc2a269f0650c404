"""The core's Redis client: one bounded pool that queues a burst instead of failing it.

redis-py 8 caps a plain pool at 100 connections and raises `MaxConnectionsError` on the 101st call,
at once. A sweep that drains thousands of actors (each taking and releasing its lease) can pass that
for a moment, and a lease call that fails there defers real work. A blocking pool of a known size
makes the burst wait briefly for a free connection, as the PostgreSQL pool does, and still fails
within `wait_seconds` when Redis is truly gone.
"""

from __future__ import annotations

import redis.asyncio as aioredis

CALL_TIMEOUT_SECONDS = 2.0


def connect_redis(
    url: str, *, max_connections: int, wait_seconds: float = CALL_TIMEOUT_SECONDS
) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=wait_seconds,
        socket_timeout=CALL_TIMEOUT_SECONDS,
        socket_connect_timeout=CALL_TIMEOUT_SECONDS,
        health_check_interval=10,
    )
    return aioredis.Redis.from_pool(pool)
