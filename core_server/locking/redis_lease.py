"""RedisLease: an entity lease on one Redis key (SET NX PX + Lua compare-and-pexpire / compare-and-delete)."""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core_server.locking.errors import LockServiceUnavailable
from core_server.metrics import LEASE_CONTENDED, LEASE_TAKEN_OVER, LEASE_WAIT_SECONDS

logger = logging.getLogger(__name__)

T = TypeVar("T")

# KEYS[1] lease key, ARGV[1] token, ARGV[2] ttl in ms. Same shape as redis-py's LUA_EXTEND_SCRIPT,
# but it resets the TTL instead of adding to it, so a renewal never stretches a lease beyond one TTL.
RENEW_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS[1] lease key, ARGV[1] token. redis-py's LUA_RELEASE_SCRIPT: atomic, unlike GET-then-DEL, so we
# can never delete a lease that expired and was taken by someone else between the two calls.
RELEASE_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""

# KEYS[1] lease key, ARGV[1] the lapsed holder's token, ARGV[2] our token, ARGV[3] ttl in ms. Takes the
# lease over only if it still holds exactly the token found lapsed: a holder that renewed, released or
# was replaced meanwhile keeps what it has.
TAKEOVER_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1 or 0
end
return 0
"""

HolderLapsed = Callable[[str], Awaitable[bool]]
"""Whether the core named by a lease token's owner part stopped beating (DESIGN §10.9)."""

_BACKOFF_MIN_S = 0.005
_BACKOFF_MAX_S = 0.05


@dataclass(frozen=True, slots=True)
class LeaseScripts:
    """The Lua scripts registered on one client; build once per client and share between leases."""

    renew: AsyncScript
    release: AsyncScript
    takeover: AsyncScript

    @classmethod
    def register(cls, redis: aioredis.Redis) -> LeaseScripts:
        # register_script only hashes the text; EVALSHA loads it on first use (NOSCRIPT fallback).
        return cls(
            renew=redis.register_script(RENEW_SCRIPT),
            release=redis.register_script(RELEASE_SCRIPT),
            takeover=redis.register_script(TAKEOVER_SCRIPT),
        )


def token_owner(token: str) -> str:
    """The owner part of a lease token `{owner}:{uuid4 hex}` (an owner may itself contain colons)."""
    return token.rpartition(":")[0]


class RedisLease:
    """One activation's lease on `key`; satisfies `core_server.actors.EntityLease`.

    The token is `{owner}:{uuid4 hex}`, fixed for this object, so `release` after a cancelled `acquire`
    is still safe (compare-and-delete). Use a fresh object per activation.

    With `holder_lapsed`, a lease held by another owner whose heartbeat lapsed (a core killed with its
    leases) is taken over at once instead of waited out to its TTL (DESIGN §10.9): a crashed core's
    entities are served again as soon as its idempotency claims are. The lapsed holder, should it be
    only wedged, is kept harmless by the storage fence the new activation takes, as after any TTL lapse.

    Every Redis call (acquire, renew, release) that cannot connect, loses its connection or exceeds
    `call_timeout` raises `LockServiceUnavailable`; any other Redis error propagates as it is.
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        key: str,
        *,
        ttl_ms: int,
        owner: str,
        call_timeout: float = 1.0,
        scripts: LeaseScripts | None = None,
        holder_lapsed: HolderLapsed | None = None,
    ) -> None:
        if ttl_ms <= 0:
            raise ValueError("ttl_ms must be positive")
        self.key = key
        self.ttl_ms = ttl_ms
        self.owner = owner
        self.token = f"{owner}:{uuid.uuid4().hex}"
        self._redis = redis
        self._call_timeout = call_timeout
        self._scripts = scripts if scripts is not None else LeaseScripts.register(redis)
        self._holder_lapsed = holder_lapsed

    async def acquire(self, wait_s: float) -> bool:
        """SET NX PX, polled with jittered backoff (5–50 ms) until `wait_s` has passed; at least one try."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + max(wait_s, 0.0)
        attempt = 0
        while True:
            # await: another process may take or release the key at any moment; SET NX decides atomically.
            taken = await self._bounded(self._redis.set(self.key, self.token, nx=True, px=self.ttl_ms))
            if not taken and self._holder_lapsed is not None:
                taken = await self._take_over_lapsed()
            if taken:
                LEASE_WAIT_SECONDS.labels("acquired").observe(loop.time() - started)
                return True
            if attempt == 0:
                LEASE_CONTENDED.inc()
            remaining = deadline - loop.time()
            if remaining <= 0:
                LEASE_WAIT_SECONDS.labels("timed_out").observe(loop.time() - started)
                return False
            cap = min(_BACKOFF_MAX_S, _BACKOFF_MIN_S * (2**attempt))
            attempt += 1
            # await: back off; the holder may release or its TTL may run out meanwhile.
            await asyncio.sleep(min(remaining, random.uniform(_BACKOFF_MIN_S, cap)))

    async def _take_over_lapsed(self) -> bool:
        """Take the lease from a holder whose core stopped beating; False if it is alive (or gone)."""
        # await: the holder may release or renew at any moment; the takeover script re-checks its token.
        held = await self._bounded(self._redis.get(self.key))
        if held is None:
            return False  # released meanwhile: the next SET NX takes it
        holder = held.decode() if isinstance(held, bytes) else str(held)
        owner = token_owner(holder)
        if owner == self.owner or not owner:
            return False
        assert self._holder_lapsed is not None
        # await: a (cached) read of the holder's heartbeat in PostgreSQL.
        if not await self._holder_lapsed(owner):
            return False
        taken = await self._bounded(
            self._scripts.takeover(
                keys=[self.key], args=[holder, self.token, self.ttl_ms], client=self._redis
            )
        )
        if taken:
            LEASE_TAKEN_OVER.inc()
            logger.warning("lease %s: taken over from %s, whose heartbeat lapsed", self.key, owner)
        return bool(taken)

    async def renew(self) -> bool:
        """Reset the TTL if the key still holds our token; False if it expired or changed hands."""
        # await: one atomic script; nothing can slip between its GET and PEXPIRE.
        result = await self._bounded(
            self._scripts.renew(keys=[self.key], args=[self.token, self.ttl_ms], client=self._redis)
        )
        return bool(result)

    async def release(self) -> None:
        """Delete the key if it still holds our token; someone else's lease is left alone."""
        # await: one atomic script; nothing can slip between its GET and DEL.
        deleted = await self._bounded(
            self._scripts.release(keys=[self.key], args=[self.token], client=self._redis)
        )
        if not deleted:
            logger.debug("lease %s: release found no lease of ours (expired or taken over)", self.key)

    async def _bounded(self, call: Awaitable[T]) -> T:
        """Every Redis call of the lease goes through here: bounded in time, and Redis' connection and
        timeout errors turned into our own, so callers never depend on redis-py's exception types.

        redis-py 8.1 on Python 3.11 swallows about a third of the cancels that land during a command
        (measured; `asyncio.wait_for`'s race, CPython gh-86296, is one place it happens): the call
        returns as if nothing happened, and a cancelled `acquire` polled on until its deadline — a
        core's shutdown waited out another owner's lease. A cancel requested during the call is raised
        here instead."""
        task = asyncio.current_task()
        requested = task.cancelling() if task is not None else 0
        try:
            async with asyncio.timeout(self._call_timeout):
                result = await call
        except TimeoutError as exc:
            raise LockServiceUnavailable(f"redis call on {self.key} exceeded {self._call_timeout}s") from exc
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise LockServiceUnavailable(f"redis call on {self.key} failed: {type(exc).__name__}") from exc
        if task is not None and task.cancelling() > requested:
            raise asyncio.CancelledError
        return result


class RedisLeaseFactory:
    """Builds `RedisLease`s on `{namespace}:lease:{kind}:{entity_id}`; satisfies `LeaseFactory`."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        namespace: str,
        ttl_ms: int,
        owner: str,
        call_timeout: float = 1.0,
        holder_lapsed: HolderLapsed | None = None,
    ) -> None:
        self._redis = redis
        self._holder_lapsed = holder_lapsed
        self._namespace = namespace
        self._ttl_ms = ttl_ms
        self._owner = owner
        self._call_timeout = call_timeout
        self._scripts = LeaseScripts.register(redis)

    def key_for(self, kind: str, entity_id: str) -> str:
        return f"{self._namespace}:lease:{kind}:{entity_id}"

    def __call__(self, kind: str, entity_id: str) -> RedisLease:
        return RedisLease(
            self._redis,
            self.key_for(kind, entity_id),
            ttl_ms=self._ttl_ms,
            owner=self._owner,
            call_timeout=self._call_timeout,
            scripts=self._scripts,
            holder_lapsed=self._holder_lapsed,
        )
