"""KdfPool: the password KDF (scrypt) in a small fixed thread pool with a bounded queue.

Why: each scrypt hash costs ~50 ms of CPU. Run through `asyncio.to_thread` (the default executor, up to
32 threads), a login flood could keep every core CPU busy hashing and starve the payment calls served by
the same event loop. Here at most `workers` hashes run at once (hashlib.scrypt releases the GIL, so the
threads really run beside the loop), at most `max_waiting` more wait, and anything beyond is refused at
once with KdfPoolSaturated (the core answers UNAVAILABLE, the gateway 503 with Retry-After) instead of
queueing without bound. On Linux the worker threads also run at the lowest CPU priority (nice
KDF_NICE): on a machine with few CPUs, hashing threads at normal priority take the CPU from the event
loop's own thread, from PostgreSQL and from the gateway, and a flood still slows payments down.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
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
    def __init__(self, workers: int, max_waiting: int) -> None:
        if workers < 1 or max_waiting < 0:
            raise ValueError("a KDF pool needs at least one worker and a non-negative waiting line")
        self.workers = workers
        self.max_waiting = max_waiting
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="kdf", initializer=_lower_priority
        )
        self._admitted = 0  # running plus waiting; only touched on the event loop, so no lock
        self.peak = 0  # the most ever admitted at once (metrics, tests)

    @property
    def admitted(self) -> int:
        return self._admitted

    def check_room(self) -> None:
        """Raises KdfPoolSaturated now if a hash could not be admitted, so a caller sheds a login before
        spending Redis and PostgreSQL round trips on it (`run` checks again: awaits may come between)."""
        if self._admitted >= self.workers + self.max_waiting:
            raise KdfPoolSaturated(f"{self.workers} KDF workers busy and {self.max_waiting} waiting")

    async def run(self, fn: Callable[..., T], /, *args: object) -> T:
        self.check_room()
        self._admitted += 1
        self.peak = max(self.peak, self._admitted)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self._admitted -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
