"""A short-lived cache of resolved API keys, so a busy key costs one core call per TTL, not per request.

Resolving a bearer key is a gRPC call and a database read in the core; under load it was a third of
the gateway's work on every merchant request. Entries are keyed by the SHA-256 of the key (no secret
is kept in memory), hold only what the core answered for a *valid* key (unknown and revoked keys are
never cached, so they keep reaching the core and the per-address limit), and live
API_KEY_CACHE_SECONDS (default 5; 0 disables the cache).

Revocation: a revoke through this gateway evicts the key's entries at once; a revoke through another
gateway is seen here within the TTL at the latest. That bound is the documented price of the cache.

Lookups are single-flight (`resolve`): when an entry expires, every busy connection of the merchant misses
at once, and they share one core call instead of each making its own.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from http_gateway.pipeline.auth import ApiCaller

MAX_ENTRIES = 10_000
"""Beyond this many live keys the oldest entry makes room (a flood of distinct keys cannot grow memory)."""


class ApiKeyCache:
    def __init__(
        self,
        ttl_seconds: float,
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl_seconds
        self._max = max_entries
        self._clock = clock
        self._entries: dict[bytes, tuple[float, ApiCaller]] = {}
        self._pending: dict[bytes, asyncio.Future[ApiCaller]] = {}

    @property
    def enabled(self) -> bool:
        return self._ttl > 0

    @staticmethod
    def _digest(token: str) -> bytes:
        return hashlib.sha256(token.encode()).digest()

    def get(self, token: str) -> ApiCaller | None:
        if not self.enabled:
            return None
        digest = self._digest(token)
        entry = self._entries.get(digest)
        if entry is None:
            return None
        expires, caller = entry
        if self._clock() >= expires:
            del self._entries[digest]
            return None
        return caller

    async def resolve(self, token: str, lookup: Callable[[], Awaitable[ApiCaller]]) -> ApiCaller:
        """The cached caller, else the answer of `lookup()`, run once for all requests missing together.

        An error (an unknown or revoked key) reaches every waiter and is not cached."""
        cached = self.get(token)
        if cached is not None or not self.enabled:
            return cached if cached is not None else await lookup()
        digest = self._digest(token)
        pending = self._pending.get(digest)
        if pending is None:
            pending = self._pending[digest] = asyncio.ensure_future(self._look_up(token, digest, lookup))
            pending.add_done_callback(_consume)
        # await: shielded, so a request that goes away does not cancel the lookup others are waiting for.
        return await asyncio.shield(pending)

    async def _look_up(
        self, token: str, digest: bytes, lookup: Callable[[], Awaitable[ApiCaller]]
    ) -> ApiCaller:
        try:
            caller = await lookup()
        finally:
            del self._pending[digest]
        self.put(token, caller)
        return caller

    def put(self, token: str, caller: ApiCaller) -> None:
        if not self.enabled:
            return
        if len(self._entries) >= self._max:
            self._entries.pop(next(iter(self._entries)))  # insertion order: the oldest entry
        self._entries[self._digest(token)] = (self._clock() + self._ttl, caller)

    def evict_key(self, key_id: str) -> int:
        """Drop every entry of the key `key_id` (it was revoked through this gateway); returns how many."""
        stale = [digest for digest, (_, caller) in self._entries.items() if caller.key_id == key_id]
        for digest in stale:
            del self._entries[digest]
        return len(stale)

    def __len__(self) -> int:
        return len(self._entries)


def _consume(lookup: asyncio.Future[ApiCaller]) -> None:
    """Reads the outcome of a lookup whose waiters all left, so asyncio does not log it as lost."""
    if not lookup.cancelled():
        lookup.exception()
