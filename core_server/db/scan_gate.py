"""ScanGate: how many CPU-heavy reads (a list's count and page) one core runs in PostgreSQL at once.

Why: a list costs PostgreSQL far more CPU than a point read (it counts every matching row, then builds the
page), and the pool lets up to DB_POOL_MAX of them run together. With more of them running than the
database has cores, they queue in the operating system's run queue instead, where nothing is first in,
first out: under load most lists took 20-40 ms while a few waited over a second for a CPU (measured during
the benchmark from the PostgreSQL backends' /proc schedstat run-queue delay, with the core itself idle).
Waiting here instead is first in, first out and costs no CPU, and it leaves the pool's other connections
to writes and point reads, which wait on the disk, not on a CPU, and lose throughput with a smaller pool.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

LIST_CONCURRENCY = 4
"""Heavy reads one core runs at once: enough to keep a small database host's cores busy while one read's
rows travel back, few enough that each runs nearly uninterrupted. At 32 and 64 connections on two cores,
a pool of 6-8 for lists cut their p99 by 2-5x while a pool of 20 for writes kept theirs."""


class ScanGate:
    """At most `limit` holders at once; the others wait their turn, each at most `timeout` seconds.

    A wait that times out raises TimeoutError, as a pool that hands out no connection does, so a request
    still answers UNAVAILABLE within the pool's time-out while PostgreSQL is down, rather than queueing
    behind every earlier request's own time-out.
    """

    def __init__(self, limit: int = LIST_CONCURRENCY, *, timeout: float) -> None:  # noqa: ASYNC109
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self._slots = asyncio.Semaphore(limit)
        self._timeout = timeout

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with asyncio.timeout(self._timeout):
            await self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()


_GATES: weakref.WeakKeyDictionary[Any, ScanGate] = weakref.WeakKeyDictionary()


def gate_for(pool: Any) -> ScanGate:
    """The one gate of `pool`: every repository's lists (charges, customers, subscriptions, invoices,
    balance transactions, payouts, events, deliveries) share its slots, so the bound holds for the
    process's database work as a whole, not per kind of list. Its wait is the pool's own time-out."""
    gate = _GATES.get(pool)
    if gate is None:
        gate = _GATES[pool] = ScanGate(timeout=pool.timeout)
    return gate
