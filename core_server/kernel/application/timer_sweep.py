"""Timer sweeps: find the entities whose timer fell due, and have each entity's actor apply it.

A sweep only finds candidates; the work (through the entity's actor) decides and writes, so the actor
stays the single writer and a second core running the same sweep changes nothing twice. Every core runs
every sweep: each batch is claimed (kernel/storage/job_claims.py, the one job-claim mechanism) by the
query that finds it, so cores take different batches, and handed back once run. A core that dies
mid-batch loses its claims when its heartbeat lapses, and the next pass anywhere takes the work over.
Due-ness is judged against each merchant's own time (the sandbox clock in TEST), which the work's query
folds in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from core_server.kernel.application.job_claims import JobClaim, JobClaims
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clock

logger = logging.getLogger(__name__)

BATCH = 500
PARALLEL = 8
"""Actor turns of a sweep in flight at once: enough to drain a backlog fast, few beside live traffic."""


class DueWork(Protocol):
    """One kind of timed work: expiring checkouts, voiding holds, renewing subscriptions…"""

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        """Ids of entities due at their merchant's time for `claim.now` (real time), at most `limit`.

        Without `owner`: only jobs no live claim holds, claimed with `claim` in the same statement. With
        `owner` (its sandbox clock moved): all of that merchant environment's, claimed or not, unclaimed
        (the actor serializes a double run)."""

    async def run(self, entity_id: str) -> bool:
        """Applies the timer through the entity's actor; True when it changed something."""


NextWake = Callable[[datetime], Awaitable[datetime]]
"""The next real moment at which work falls due on a fixed schedule (00:00 of some clock)."""
JOB_CLAIM = timedelta(minutes=5)
"""JOB_CLAIM_SECONDS' default: how long a batch stays claimed by a core that still beats (a dead one's
claims go with its heartbeat)."""
WAKE_LATE = 1.0
"""Seconds after a scheduled wake the pass starts, so the moment has surely passed on every clock."""


class TimerSweep:
    def __init__(
        self,
        name: str,
        work: DueWork,
        clock: Clock,
        claims: JobClaims,
        *,
        interval: float,
        lease: timedelta = JOB_CLAIM,
        batch: int = BATCH,
        parallel: int = PARALLEL,
        next_wake: NextWake | None = None,
    ) -> None:
        """`name` is also the job its claims are made for. `next_wake`: work due at fixed moments (daily
        notices and payouts at 00:00 of each merchant's clock, DESIGN §10.4) also wakes the sweep then,
        not only every `interval` from process start."""
        self.name = name
        self._work = work
        self._clock = clock
        self._claims = claims
        self.interval = interval
        self._lease = lease
        self._batch = batch
        self._parallel = parallel
        self._next_wake = next_wake

    async def run_once(self, owner: Owner | None = None) -> int:
        """Drains everything due (or only `owner`'s, after its clock moved); returns the changes.

        Batch after batch until one comes back short: a backlog (an outage, a clock advance over
        thousands of charges) is cleared in one pass, not BATCH per interval. A batch that changed
        nothing ends the pass too (everything in it was deferred; the next pass retries). Each claimed
        batch is handed back once run, failures included: the next pass retries them rather than
        waiting out the claim.
        """
        changed = 0
        while True:
            claim = JobClaim.fresh(self.name, self._clock.now(), self._lease)
            due = await self._work.find_due(claim, self._batch, owner)
            try:
                made = await self._run_batch(due)
            finally:
                if owner is None:
                    await self._claims.release(claim, due)
            changed += made
            if len(due) < self._batch or made == 0:
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
            try:
                await self.run_once()
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
