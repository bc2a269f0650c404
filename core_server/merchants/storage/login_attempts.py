"""RedisLoginAttempts: the login throttle's records in Redis, shared by every core (and so every gateway).

One hash per throttle key, `{namespace}:login:{key}`, with `f` (attempts counted since the last success)
and `t` (when the last one was counted, epoch microseconds); a known (account, address) pair is a key
`{namespace}:login-known:{key}` that expires when it is no longer known. The rule lives in
`merchants/domain/login_throttle.py`; this adapter only reads, compare-and-sets and deletes records.
Redis failures surface as LockServiceUnavailable (the core answers UNAVAILABLE): the throttle fails
closed, never letting guesses through uncounted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core_server.locking.errors import LockServiceUnavailable
from core_server.merchants.domain.login_throttle import NO_FAILURES, LoginRecord

T = TypeVar("T")

# KEYS[1] record; ARGV[1], ARGV[2] the failures and time the caller read ('0' and '' for no record);
# ARGV[3], ARGV[4] the record to store; ARGV[5] its time to live in ms. Stores only if the record is still
# the one read, so two cores counting the same account at once cannot both pass on one free attempt.
COMPARE_AND_SET_SCRIPT = """
local f = redis.call('hget', KEYS[1], 'f') or '0'
local t = redis.call('hget', KEYS[1], 't') or ''
if f ~= ARGV[1] or t ~= ARGV[2] then
    return 0
end
redis.call('hset', KEYS[1], 'f', ARGV[3], 't', ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[5])
return 1
"""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _encode_time(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return str((moment - _EPOCH) // timedelta(microseconds=1))


def _decode_time(raw: bytes | str | None) -> datetime | None:
    if not raw:
        return None
    return _EPOCH + timedelta(microseconds=int(raw))


class RedisLoginAttempts:
    """Satisfies `LoginAttempts` (merchants/application/merchants.py)."""

    def __init__(self, redis: aioredis.Redis, *, namespace: str, call_timeout: float = 2.0) -> None:
        self._redis = redis
        self._prefix = f"{namespace}:login:"
        self._known_prefix = f"{namespace}:login-known:"
        self._call_timeout = call_timeout
        self._compare_and_set = redis.register_script(COMPARE_AND_SET_SCRIPT)

    async def read(self, key: str) -> LoginRecord:
        fields = await self._bounded(self._redis.hmget(self._prefix + key, ["f", "t"]))
        failures, last = fields
        if failures is None:
            return NO_FAILURES
        return LoginRecord(failures=int(failures), last_failure=_decode_time(last))

    async def replace(self, key: str, seen: LoginRecord, updated: LoginRecord, keep: timedelta) -> bool:
        args = [
            str(seen.failures),
            _encode_time(seen.last_failure),
            str(updated.failures),
            _encode_time(updated.last_failure),
            str(max(1, keep // timedelta(milliseconds=1))),
        ]
        stored = await self._bounded(self._compare_and_set(keys=[self._prefix + key], args=args))
        return bool(stored)

    async def reset(self, key: str) -> None:
        await self._bounded(self._redis.delete(self._prefix + key))

    async def is_known(self, key: str) -> bool:
        return bool(await self._bounded(self._redis.exists(self._known_prefix + key)))

    async def remember(self, key: str, keep: timedelta) -> None:
        await self._bounded(
            self._redis.set(self._known_prefix + key, b"1", px=max(1, keep // timedelta(milliseconds=1)))
        )

    async def _bounded(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self._call_timeout):
                return await call
        except TimeoutError as exc:
            raise LockServiceUnavailable(f"login throttle call exceeded {self._call_timeout}s") from exc
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise LockServiceUnavailable(f"login throttle call failed: {type(exc).__name__}") from exc
