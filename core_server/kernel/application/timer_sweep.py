"""Timer sweeps: find the entities whose timer fell due, and have each entity's actor apply it.

A sweep only finds candidates; the work (through the entity's actor) decides and writes, so the actor
stays the single writer and a second core running the same sweep changes nothing twice. A Redis lease
per sweep keeps several cores from scanning at the same moment. Due-ness is judged against each
merchant's own time (the sandbox clock in TEST), which the work's query folds in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Protocol

from core_server.actors import EntityLease, LeaseFactory
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clock

logger = logging.getLogger(__name__)

BATCH = 500
PARALLEL = 8
"""Actor turns of a sweep in flight at once: enough to drain a backlog fast, few beside live traffic."""


class DueWork(Protocol):
    """One kind of timed work: expiring checkouts, voiding holds, renewing subscriptions…"""

    async def find_due(self, real_now: datetime, limit: int, owner: Owner | None) -> Sequence[str]:
        """Ids of entities due at their merchant's time for `real_now`; only `owner`'s when given."""

    async def run(self, entity_id: str) -> bool:
        """Applies the timer through the entity's actor; True when it changed something."""


NextWake = Callable[[datetime], Awaitable[datetime]]
"""The next real moment at which work falls due on a fixed schedule (00:00 of some clock)."""
WAKE_LATE = 1.0
"""Seconds after a scheduled wake the pass starts, so the moment has surely passed on every clock."""


class TimerSweep:
    def __init__(
        self,
        name: str,
        work: DueWork,
        clock: Clock,
        leases: LeaseFactory,
        *,
        interval: float,
        batch: int = BATCH,
        parallel: int = PARALLEL,
        exclusive: bool = True,
        next_wake: NextWake | None = None,
    ) -> None:
        """`exclusive`: one core at a time scans (a Redis lease per pass). Work whose `find_due` claims
        its batch itself (`FOR UPDATE SKIP LOCKED`) passes False, so every core drains the backlog at
        once, each its own batches. `next_wake`: work due at fixed moments (daily notices and payouts at
        00:00 of each merchant's clock, DESIGN §10.4) also wakes the sweep then, not only every
        `interval` from process start."""
        self.name = name
        self._work = work
        self._clock = clock
        self._leases = leases
        self.interval = interval
        self._batch = batch
        self._parallel = parallel
        self._exclusive = exclusive
        self._next_wake = next_wake

    async def run_once(self, owner: Owner | None = None, lease: EntityLease | None = None) -> int:
        """Drains everything due (or only `owner`'s, after its clock moved); returns the changes.

        Batch after batch until one comes back short: a backlog (an outage, a clock advance over
        thousands of charges) is cleared in one pass, not BATCH per interval. A batch that changed
        nothing ends the pass too (everything in it was deferred; the next pass retries), and so does a
        job `lease` that could not be renewed between batches (another core may take over).
        """
        changed = 0
        while True:
            due = await self._work.find_due(self._clock.now(), self._batch, owner)
            made = await self._run_batch(due)
            changed += made
            if len(due) < self._batch or made == 0 or (lease is not None and not await lease.renew()):
                break
        if changed:
            logger.info("%s changed %d entities", self.name, changed)
        return changed

    async def _run_batch(self, due: Sequence[str]) -> int:
        """Runs a batch PARALLEL at a time: each run is an actor turn (a lease, a load, a write)."""
        slots = asyncio.Semaphore(self._parallel)

        async def run(entity_id: str) -> bool:
            async with slots:
                try:
                    return await self._work.run(entity_id)
                except Exception as exc:  # noqa: BLE001 - one stuck entity must not stop the sweep
                    logger.warning(
                        "%s of %s deferred to the next pass: %s", self.name, entity_id, type(exc).__name__
                    )
                    return False

        return sum(await asyncio.gather(*(run(entity_id) for entity_id in due)))

    async def run_forever(self) -> None:
        while True:
            lease = self._leases("job", self.name)
            try:
                if not self._exclusive:
                    await self.run_once()
                elif await lease.acquire(0):
                    try:
                        await self.run_once(lease=lease)
                    finally:
                        await lease.release()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweep must survive outages and try again
                logger.exception("%s failed; retrying in %.0f s", self.name, self.interval)
            # Sleeps between passes; cancelled at shutdown.
            await asyncio.sleep(await self._pause())

    async def _pause(self) -> float:
        """Until the next pass: the interval, or less when a scheduled moment comes first."""
        if self._next_wake is None:
            return self.interval
        now = self._clock.now()
        try:
            wake = await self._next_wake(now)
        except Exception:  # noqa: BLE001 - an outage: the interval still brings the next pass
            return self.interval
        return min(self.interval, max(WAKE_LATE, (wake - now).total_seconds() + WAKE_LATE))
