"""ScanGate: how many CPU-bound reads (a list's count and page; a point read) one core runs in PostgreSQL at
once.

Why: a list costs PostgreSQL far more CPU than a point read (it counts every matching row, then builds the
page), and the pool lets up to DB_POOL_MAX of them run together. With more of them running than the
database has cores, they queue in the operating system's run queue instead, where nothing is first in,
first out: under load most lists took 20-40 ms while a few waited over a second for a CPU (measured during
the benchmark from the PostgreSQL backends' /proc schedstat run-queue delay, with the core itself idle).
Waiting here instead is first in, first out and costs no CPU, and it leaves the pool's other connections
to writes, which wait on the disk, not on a CPU, and lose throughput with a smaller pool. Point reads are
cheap but CPU-bound too: at a high enough rate they meet the same run queue, so they have a gate of their
own (POINT_READ_CONCURRENCY).

The slots are shared fairly across tenants (DESIGN §10.9): one merchant holds at most `per_tenant` of
them, and a freed slot goes to the waiting tenant that holds fewest, then the one served longest ago
(tenants take turns), each tenant's own lists first in, first out. So one merchant paging through a
large list in parallel slows its own lists, never another's.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

LIST_CONCURRENCY = 4
"""Heavy reads one core runs at once: enough to keep a small database host's cores busy while one read's
rows travel back, few enough that each runs nearly uninterrupted. At 32 and 64 connections on two cores,
a pool of 6-8 for lists cut their p99 by 2-5x while a pool of 20 for writes kept theirs."""

PER_TENANT = 2
"""Of those, the most one tenant (merchant) holds at once: the others always keep half the slots."""

POINT_READ_CONCURRENCY = 6
"""Point reads (a charge by id, GET /v1/charges/{id}) one core runs at once. Each costs PostgreSQL well
under a millisecond, all of it CPU: on a faster machine a core sent 1,800 a second, the pool's 20 backends
all became runnable at once, and the same run-queue lottery as the lists' left a few reads waiting
0.3-1.2 s for a CPU (p99 at 32 connections 3-7x the median; PostgreSQL's log showed the primary-key
lookup itself taking 325-702 ms, with no disk read and no lock). Six slots kept the throughput and took
the slowest read of a run from 340-1,230 ms to 80-130 ms (BENCHMARKS.md, "Speed, round 7"). Their own
gate, not the lists' four slots: a point read must not queue behind a list's 20-40 ms."""


class ScanGate:
    """At most `limit` holders at once and `per_tenant` per tenant; the others wait their turn (tenants
    take turns, each tenant's lists in arrival order), each at most `timeout` seconds.

    A wait that times out raises TimeoutError, as a pool that hands out no connection does, so a request
    still answers UNAVAILABLE within the pool's time-out while PostgreSQL is down, rather than queueing
    behind every earlier request's own time-out.
    """

    def __init__(
        self,
        limit: int = LIST_CONCURRENCY,
        *,
        per_tenant: int = PER_TENANT,
        timeout: float,  # noqa: ASYNC109
    ) -> None:
        if limit < 1 or per_tenant < 1:
            raise ValueError("limit and per_tenant must be at least 1")
        self._limit = limit
        self._per_tenant = min(per_tenant, limit)
        self._timeout = timeout
        self._running = 0
        self._held: dict[str, int] = {}
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        # When each tenant that holds or awaits a slot was last given one: ties go to the longest unserved.
        self._served: dict[str, int] = {}
        self._grants = 0

    @asynccontextmanager
    async def slot(self, tenant: str = "") -> AsyncIterator[None]:
        """One slot for a list of `tenant` (a merchant id; "" for work of no tenant)."""
        await self._acquire(tenant)
        try:
            yield
        finally:
            self._release(tenant)

    def _may_start(self, tenant: str) -> bool:
        return self._running < self._limit and self._held.get(tenant, 0) < self._per_tenant

    def _grant(self, tenant: str) -> None:
        self._running += 1
        self._held[tenant] = self._held.get(tenant, 0) + 1
        self._grants += 1
        self._served[tenant] = self._grants

    async def _acquire(self, tenant: str) -> None:
        # No waiter could take a free slot (each freed one is handed on at once), so when this tenant may
        # start, nobody who came earlier may: starting now jumps no queue.
        if self._may_start(tenant) and tenant not in self._waiting:
            self._grant(tenant)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(tenant, deque()).append(turn)
        try:
            async with asyncio.timeout(self._timeout):
                await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self._release(tenant)  # granted just as the wait ended: hand the slot on
            else:
                turn.cancel()
                self._forget(tenant, turn)
            raise

    def _forget(self, tenant: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(tenant)
        if queue is None:
            return
        if turn in queue:  # already popped by _hand_on when it found the turn cancelled
            queue.remove(turn)
        if not queue:
            del self._waiting[tenant]
            self._tidy(tenant)

    def _tidy(self, tenant: str) -> None:
        if tenant not in self._held and tenant not in self._waiting:
            self._served.pop(tenant, None)

    def _release(self, tenant: str) -> None:
        self._running -= 1
        left = self._held[tenant] - 1
        if left:
            self._held[tenant] = left
        else:
            del self._held[tenant]
            self._tidy(tenant)
        self._hand_on()

    def _hand_on(self) -> None:
        """Free slots to waiting tenants under their cap: the one holding fewest first, then the one
        served longest ago, so tenants take turns whatever the number of lists each has queued."""
        while self._running < self._limit:
            eligible = [t for t in self._waiting if self._held.get(t, 0) < self._per_tenant]
            if not eligible:
                return
            tenant = min(eligible, key=lambda t: (self._held.get(t, 0), self._served.get(t, 0)))
            queue = self._waiting[tenant]
            turn = queue.popleft()
            if not queue:
                del self._waiting[tenant]
            if turn.done():
                self._tidy(tenant)
                continue  # its waiter was cancelled (time-out) and has not run its clean-up yet
            self._grant(tenant)
            turn.set_result(None)


_GATES: weakref.WeakKeyDictionary[Any, ScanGate] = weakref.WeakKeyDictionary()
_POINT_GATES: weakref.WeakKeyDictionary[Any, ScanGate] = weakref.WeakKeyDictionary()


def gate_for(pool: Any) -> ScanGate:
    """The one gate of `pool`: every repository's lists (charges, customers, subscriptions, invoices,
    balance transactions, payouts, events, deliveries) share its slots, so the bound holds for the
    process's database work as a whole, not per kind of list. Its wait is the pool's own time-out."""
    return _gate_of(_GATES, pool, LIST_CONCURRENCY, PER_TENANT)


def point_read_gate_for(pool: Any) -> ScanGate:
    """The gate of `pool`'s point reads (POINT_READ_CONCURRENCY): one queue, first in first out, for
    every tenant — a slot is held for well under a millisecond, so no tenant keeps one long enough to need
    turns. Its wait is the pool's own time-out, as for lists."""
    return _gate_of(_POINT_GATES, pool, POINT_READ_CONCURRENCY, POINT_READ_CONCURRENCY)


def _gate_of(
    gates: weakref.WeakKeyDictionary[Any, ScanGate], pool: Any, limit: int, per_tenant: int
) -> ScanGate:
    """`pool`'s gate in `gates`, made on first use; it lives as long as the pool."""
    gate = gates.get(pool)
    if gate is None:
        gate = gates[pool] = ScanGate(limit, per_tenant=per_tenant, timeout=pool.timeout)
    return gate
