"""Fixed one-second window rate limits in Redis, shared by every gateway process, and their headers;
counted per process while Redis is down."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from connect import errors
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.redis_sentinel import sentinel_client

logger = logging.getLogger(__name__)

# INCR and PEXPIRE in one script so a crash between them can never leave a counter without expiry.
_HIT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
"""
# The window is one second; the key lives a little longer so clock skew between gateways is harmless.
_KEY_TTL_MS = 2_000
# Redis waits are bounded: a dead Redis answers 503 quickly instead of hanging the request.
REDIS_TIMEOUT_SECONDS = 1.0


REDIS_POOL_MAX = 128


def connect_redis(
    url: str,
    max_connections: int = REDIS_POOL_MAX,
    *,
    sentinels: tuple[tuple[str, int], ...] = (),
    service: str = "",
) -> aioredis.Redis:
    """A client with bounded socket waits and a single immediate retry on a dropped connection.

    The pool blocks (up to the same bounded wait) when all its connections are busy: redis-py 8 would
    otherwise fail the 101st concurrent call at once with `MaxConnectionsError`, turning a burst of
    requests into 503s. With `sentinels`, the same pool follows the master Sentinel names for `service`.
    """
    options: dict[str, Any] = {
        "max_connections": max_connections,
        "timeout": REDIS_TIMEOUT_SECONDS,
        "socket_timeout": REDIS_TIMEOUT_SECONDS,
        "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
        "retry": Retry(NoBackoff(), 1),
        "health_check_interval": 30,
    }
    if sentinels:
        return sentinel_client(url, sentinels, service, **options)
    pool = aioredis.BlockingConnectionPool.from_url(url, **options)
    return aioredis.Redis.from_pool(pool)


@dataclass(frozen=True, slots=True)
class RateLimitDecision:
    """The outcome of counting one request, with what the X-RateLimit-* headers must say."""

    limit: int
    remaining: int
    reset: int
    allowed: bool
    retry_after: int

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }

    def error(self) -> ApiError:
        headers = {**self.headers(), "Retry-After": str(self.retry_after)}
        return ApiError.of(
            errors.RATE_LIMIT_EXCEEDED,
            f"Too many requests: the limit is {self.limit} per second. Retry after {self.retry_after} s.",
            headers=headers,
        )


def decide(count: int, limit: int, now: float) -> RateLimitDecision:
    """Header math for the `count`-th request in the window that holds `now` (pure, unit-tested)."""
    window = int(now)
    reset = window + 1
    return RateLimitDecision(
        limit=limit,
        remaining=max(limit - count, 0),  # counts this request; never negative
        reset=reset,
        allowed=count <= limit,
        retry_after=max(1, math.ceil(reset - now)),
    )


class LocalFixedWindow:
    """The fallback while Redis is down: the same one-second windows, counted in this process only.

    With N gateways a subject may get up to N × limit per second during an outage: the price of keeping
    reads answering from PostgreSQL instead of refusing everything. Only the current second is kept.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._window = -1
        self._counts: dict[str, int] = {}

    def hit(self, subject: str, limit: int) -> RateLimitDecision:
        now = self._clock()
        window = int(now)
        if window != self._window:
            self._window, self._counts = window, {}
        count = self._counts.get(subject, 0) + 1
        self._counts[subject] = count
        return decide(count, limit, now)


class RedisProbe:
    """When to try a Redis that failed again: after 0.5 s, then doubling up to 30 s, so a dead Redis
    costs one request's wait per probe instead of every request's. Pure (the caller passes the time)."""

    FIRST_SECONDS = 0.5
    MAX_SECONDS = 30.0

    def __init__(self) -> None:
        self._delay = 0.0
        self._next = 0.0

    @property
    def down(self) -> bool:
        return self._delay > 0

    def should_try(self, now: float) -> bool:
        """True when Redis is believed up, or a probe is due; a due probe is handed to one caller only."""
        if not self.down:
            return True
        if now < self._next:
            return False
        self._next = now + self._delay  # the others keep counting locally while this probe runs
        return True

    def failed(self, now: float) -> None:
        self._delay = min(self._delay * 2, self.MAX_SECONDS) if self.down else self.FIRST_SECONDS
        self._next = now + self._delay

    def answered(self) -> None:
        self._delay = 0.0


class RateLimiter:
    """Counts requests per subject (`merchant:env` or `ip:address`) in `{ns}:rl:{subject}:{unix_second}`.

    While Redis cannot answer, requests are counted by a LocalFixedWindow with the same limits and
    headers (reads keep answering from PostgreSQL); Redis is probed on a back-off and used again as soon
    as it answers.
    """

    def __init__(
        self, client: aioredis.Redis, namespace: str, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client
        self._namespace = namespace
        self._clock = clock
        self._script = client.register_script(_HIT_SCRIPT)
        self._local = LocalFixedWindow(clock)
        self._probe = RedisProbe()

    def key(self, subject: str, second: int) -> str:
        return f"{self._namespace}:rl:{subject}:{second}"

    @property
    def local(self) -> bool:
        """True while requests are counted in this process (Redis did not answer)."""
        return self._probe.down

    async def hit(self, subject: str, limit: int) -> RateLimitDecision:
        """Count one request in Redis, or in this process while Redis is down."""
        now = self._clock()
        if not self._probe.should_try(now):
            return self._local.hit(subject, limit)
        try:
            async with asyncio.timeout(REDIS_TIMEOUT_SECONDS * 2):
                count = int(await self._script(keys=[self.key(subject, int(now))], args=[_KEY_TTL_MS]))
        except (RedisError, OSError, TimeoutError) as exc:
            if not self._probe.down:
                logger.error(
                    "rate limiter: Redis unavailable, counting in this process",
                    extra={"error": type(exc).__name__},
                )
            self._probe.failed(self._clock())
            return self._local.hit(subject, limit)
        if self._probe.down:
            logger.warning("rate limiter: Redis answers again, counting there")
            self._probe.answered()
        return decide(count, limit, now)
