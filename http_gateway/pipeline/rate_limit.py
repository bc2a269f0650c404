"""Fixed one-second window rate limits in Redis, shared by every gateway process, and their headers;
counted per process while Redis is down. Positions in a window are leased in small batches
(pipeline/rate_leases.py), so most requests make no Redis round trip."""

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
from http_gateway.pipeline.rate_leases import WindowLease, lease_size
from http_gateway.pipeline.redis_sentinel import sentinel_client

logger = logging.getLogger(__name__)

# INCRBY (a lease of ARGV[2] positions) and PEXPIRE in one script so a crash between them can never
# leave a counter without expiry.
_LEASE_SCRIPT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
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

    A request takes the next position this gateway leased in the window's counter (WindowLease); only
    when none is left does it lease more, one lease in flight per subject, the others waiting for it.
    Once the window's count reached the limit, the rest of the window is refused here without Redis.
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
        self._script = client.register_script(_LEASE_SCRIPT)
        self._local = LocalFixedWindow(clock)
        self._probe = RedisProbe()
        self._leases: dict[str, WindowLease] = {}
        self._swept_window = 0

    def key(self, subject: str, second: int) -> str:
        return f"{self._namespace}:rl:{subject}:{second}"

    @property
    def local(self) -> bool:
        """True while requests are counted in this process (Redis did not answer)."""
        return self._probe.down

    async def hit(self, subject: str, limit: int) -> RateLimitDecision:
        """Count one request against the window's shared count, or in this process while Redis is down."""
        now = self._clock()
        if not self._probe.should_try(now):
            return self._local.hit(subject, limit)
        window = self._window_lease(subject, int(now))
        while True:
            position = window.take()
            if position is not None:
                return decide(position, limit, now)
            if window.exhausted(limit):
                window.refuse()
                return decide(limit + 1, limit, now)
            try:
                await self._await_lease(window, subject, limit)
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

    def _window_lease(self, subject: str, window: int) -> WindowLease:
        """The subject's lease for `window`, a new one (sized by the window before) when it changed."""
        if window > self._swept_window:  # once a second: forget subjects not seen since the last window
            self._swept_window = window
            self._leases = {s: w for s, w in self._leases.items() if w.window >= window - 1}
        current = self._leases.get(subject)
        if current is None or current.window != window:
            demand = current.taken if current is not None and current.window == window - 1 else 0
            current = self._leases[subject] = WindowLease(window, previous_demand=demand)
        return current

    async def _await_lease(self, window: WindowLease, subject: str, limit: int) -> None:
        """Wait for the lease in flight, starting one (for every waiter) when none is."""
        if window.lease is None:
            size = lease_size(limit, window.previous_demand, window.waiting + 1)
            window.lease = asyncio.ensure_future(self._lease(window, subject, size))
            # A failure nobody waits for any more (every waiter cancelled) must not be reported as lost.
            window.lease.add_done_callback(lambda f: f.cancelled() or f.exception())
        window.waiting += 1
        try:
            # Shielded: a cancelled request leaves the lease to the others waiting for it.
            await asyncio.shield(window.lease)
        finally:
            window.waiting -= 1

    async def _lease(self, window: WindowLease, subject: str, size: int) -> None:
        try:
            async with asyncio.timeout(REDIS_TIMEOUT_SECONDS * 2):
                key = self.key(subject, window.window)
                total = int(await self._script(keys=[key], args=[_KEY_TTL_MS, size]))
        finally:
            window.lease = None
        window.grant(total, size)
