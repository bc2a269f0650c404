"""In-memory fakes of the core's ports, for unit tests that must run without PostgreSQL or Redis."""

from __future__ import annotations

import asyncio
import itertools

_tokens = itertools.count(1)


class FakeLease:
    """In-memory `EntityLease`: leases built on one shared `store` dict contend like keys in Redis.

    No expiry: a test simulates a lost lease with `renew_ok = False` (or `steal()`), a busy one by
    putting another token in the store. Counters let tests assert what the actor did.
    """

    def __init__(self, key: str = "lease", *, ttl_ms: int = 300, store: dict[str, str] | None = None) -> None:
        self.key = key
        self.ttl_ms = ttl_ms
        self.store: dict[str, str] = store if store is not None else {}
        self.token = f"fake:{next(_tokens)}"
        self.renew_ok = True
        self.acquire_error: BaseException | None = None
        self.acquire_calls = 0
        self.renew_calls = 0
        self.release_calls = 0

    @property
    def held(self) -> bool:
        return self.store.get(self.key) == self.token

    def steal(self, token: str = "someone-else") -> None:
        """Model expiry followed by another owner taking the key."""
        self.store[self.key] = token

    async def acquire(self, wait_s: float) -> bool:
        self.acquire_calls += 1
        if self.acquire_error is not None:
            raise self.acquire_error
        deadline = asyncio.get_running_loop().time() + wait_s
        while True:
            if self.key not in self.store:
                self.store[self.key] = self.token
                return True
            if asyncio.get_running_loop().time() >= deadline:
                return False
            await asyncio.sleep(0.001)

    async def renew(self) -> bool:
        self.renew_calls += 1
        return self.renew_ok and self.held

    async def release(self) -> None:
        self.release_calls += 1
        if self.held:
            del self.store[self.key]
