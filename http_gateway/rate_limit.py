"""Fixed one-second window rate limits in Redis, shared by every gateway process, and their headers."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from http_gateway.errors import ApiError

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


def connect_redis(url: str) -> aioredis.Redis:
    """A client with bounded socket waits and a single immediate retry on a dropped connection."""
    return aioredis.Redis.from_url(
        url,
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 1),
        health_check_interval=30,
    )


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
        return ApiError(
            "rate_limit_error",
            "rate_limit_exceeded",
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


class RateLimiter:
    """Counts requests per subject (`merchant:env` or `ip:address`) in `{ns}:rl:{subject}:{unix_second}`."""

    def __init__(
        self, client: aioredis.Redis, namespace: str, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client
        self._namespace = namespace
        self._clock = clock
        self._script = client.register_script(_HIT_SCRIPT)

    def key(self, subject: str, second: int) -> str:
        return f"{self._namespace}:rl:{subject}:{second}"

    async def hit(self, subject: str, limit: int) -> RateLimitDecision:
        """Count one request; raises ApiError 503 when Redis cannot answer in time."""
        now = self._clock()
        try:
            async with asyncio.timeout(REDIS_TIMEOUT_SECONDS * 2):
                count = int(await self._script(keys=[self.key(subject, int(now))], args=[_KEY_TTL_MS]))
        except (RedisError, OSError, TimeoutError) as exc:
            logger.error("rate limiter unavailable", extra={"error": type(exc).__name__})
            raise ApiError(
                "api_error",
                "service_unavailable",
                "The service is temporarily unavailable.",
                http_status=503,
                headers={"Retry-After": "1"},
            ) from None
        return decide(count, limit, now)
