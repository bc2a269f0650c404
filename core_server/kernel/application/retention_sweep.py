"""RetentionSweep: deletes what outlived its retention period, a batch per statement, until none is left.

Safe with several cores: each rule is a job claimed for the pass (kernel/storage/job_claims.py, the one
job-claim mechanism), so one core at a time purges it, and each batch locks its rows with
`FOR UPDATE SKIP LOCKED`, so a second sweeper (a claim that lapsed during a long purge) takes other rows
instead of waiting, and no row is deleted twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from core_server.kernel.application.job_claims import JobClaim, JobClaims
from core_server.kernel.application.ports import Clock
from core_server.kernel.domain.retention import PURGE_BATCH, cutoff

logger = logging.getLogger(__name__)


class Purger(Protocol):
    async def purge_older_than(self, cutoff: datetime, limit: int) -> int:
        """Deletes at most `limit` rows stamped at or before `cutoff` (skipping rows others hold locked);
        returns how many."""


@dataclass(frozen=True, slots=True)
class RetentionRule:
    """One kind of row, kept for `keep`."""

    name: str
    keep: timedelta
    purger: Purger


class RuleClaims(JobClaims, Protocol):
    async def claim(self, claim: JobClaim, entities: Sequence[str]) -> Sequence[str]:
        """The listed jobs no live claim holds, claimed with `claim`."""


class RetentionSweep:
    name = "retention"

    def __init__(
        self,
        rules: Sequence[RetentionRule],
        clock: Clock,
        claims: RuleClaims,
        *,
        interval: float,
        batch: int = PURGE_BATCH,
        lease: timedelta = timedelta(minutes=5),
    ) -> None:
        self._rules = list(rules)
        self._clock = clock
        self._claims = claims
        self.interval = interval
        self._batch = batch
        self._lease = lease

    async def run_once(self) -> dict[str, int]:
        """One pass over every rule this core could claim; returns the rows deleted per rule (a rule
        another core holds counts 0)."""
        now = self._clock.now()
        deleted: dict[str, int] = {}
        for rule in self._rules:
            deleted[rule.name] = 0
            claim = JobClaim.fresh(self.name, now, self._lease)
            if not await self._claims.claim(claim, [rule.name]):
                continue  # another core purges it now
            try:
                deleted[rule.name] = await self._purge(rule, cutoff(now, rule.keep))
            finally:
                await self._claims.release(claim, [rule.name])
        if any(deleted.values()):
            logger.info("retention purged %s", deleted)
        return deleted

    async def _purge(self, rule: RetentionRule, old_at: datetime) -> int:
        deleted = 0
        while True:
            count = await rule.purger.purge_older_than(old_at, self._batch)
            deleted += count
            if count < self._batch:
                return deleted
            await asyncio.sleep(0)  # other work runs between batches

    async def run_forever(self) -> None:
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweep must survive outages and try again
                logger.exception("retention sweep failed; retrying in %.0f s", self.interval)
            # Sleeps between passes; cancelled at shutdown.
            await asyncio.sleep(self.interval)
