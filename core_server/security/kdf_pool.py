"""KdfPool: the password KDF (scrypt) in a small fixed thread pool with a bounded queue.

Why: each scrypt hash costs ~50 ms of CPU. Run through `asyncio.to_thread` (the default executor, up to
32 threads), a login flood could keep every core CPU busy hashing and starve the payment calls served by
the same event loop. Here at most `workers` hashes run at once (hashlib.scrypt releases the GIL, so the
threads really run beside the loop), at most `max_waiting` more wait, and anything beyond is refused at
once with KdfPoolSaturated (the core answers UNAVAILABLE, the gateway 503 with Retry-After) instead of
queueing without bound. On Linux the worker threads also run at the lowest CPU priority (nice
KDF_NICE): on a machine with few CPUs, hashing threads at normal priority take the CPU from the event
loop's own thread, from PostgreSQL and from the gateway, and a flood still slows payments down.

Fair admission (DESIGN §10.9): each hash is admitted for an owner, the client address group the gateway
named, and one owner holds at most `per_owner` of the pool's places (running plus waiting) at once
(LOGIN_KDF_PER_ADDRESS). A few addresses at the anonymous rate limit therefore cannot fill the pool
and have every other login and sign-up refused with 503: each is refused beyond its own share while
the rest of the pool stays open. Work with no owner ("": internal callers; the gateway always names
the client) is bounded by the pool alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

KDF_NICE = 19


def _lower_priority() -> None:
    """Linux schedules each thread as its own task, so one thread can be niced without the rest of the
    process; elsewhere (or when refused) the thread keeps the process's priority."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), KDF_NICE)


class KdfPoolSaturated(Exception):
    """Every KDF worker is busy and the waiting line is full; retrying shortly may work."""


class KdfPool:
    def __init__(self, workers: int, max_waiting: int, per_owner: int | None = None) -> None:
        if workers < 1 or max_waiting < 0:
            raise ValueError("a KDF pool needs at least one worker and a non-negative waiting line")
        if per_owner is not None and per_owner < 1:
            raise ValueError("each owner needs room for at least one hash")
        self.workers = workers
        self.max_waiting = max_waiting
        # By default a quarter of the places (2 of the default 2 + 8), so at least four addresses at once.
        self.per_owner = per_owner if per_owner is not None else max(1, (workers + max_waiting) // 4)
        self._by_owner: Counter[str] = Counter()  # admitted per owner, "" never counted
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="kdf", initializer=_lower_priority
        )
        self._admitted = 0  # running plus waiting; only touched on the event loop, so no lock
        self.peak = 0  # the most ever admitted at once (metrics, tests)

    @property
    def admitted(self) -> int:
        return self._admitted

    def check_room(self, owner: str = "") -> None:
        """Raises KdfPoolSaturated now if a hash for `owner` could not be admitted, so a caller sheds a
        login before spending Redis and PostgreSQL round trips on it (`run` checks again: awaits may come
        between)."""
        if self._admitted >= self.workers + self.max_waiting:
            raise KdfPoolSaturated(f"{self.workers} KDF workers busy and {self.max_waiting} waiting")
        if owner and self._by_owner[owner] >= self.per_owner:
            raise KdfPoolSaturated(f"this client already has {self.per_owner} KDF hashes admitted")

    async def run(self, fn: Callable[..., T], /, *args: object, owner: str = "") -> T:
        self.check_room(owner)
        self._admitted += 1
        if owner:
            self._by_owner[owner] += 1
        self.peak = max(self.peak, self._admitted)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self._admitted -= 1
            if owner:
                self._by_owner[owner] -= 1
                if self._by_owner[owner] <= 0:
                    del self._by_owner[owner]

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
