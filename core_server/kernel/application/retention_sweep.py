"""RetentionSweep: deletes what outlived its retention period, a batch per statement, until none is left.

Safe with several cores: a Redis job lease keeps them from sweeping at the same moment, and each batch
locks its rows with `FOR UPDATE SKIP LOCKED`, so a second sweeper (a lease that lapsed during a long
purge) takes other rows instead of waiting, and no row is deleted twice. The lease is renewed between
batches; once it is lost the pass stops and whoever holds it carries on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from core_server.actors import EntityLease, LeaseFactory
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


class RetentionSweep:
    name = "retention"

    def __init__(
        self,
        rules: Sequence[RetentionRule],
        clock: Clock,
        leases: LeaseFactory,
        *,
        interval: float,
        batch: int = PURGE_BATCH,
    ) -> None:
        self._rules = list(rules)
        self._clock = clock
        self._leases = leases
        self.interval = interval
        self._batch = batch

    async def run_once(self, lease: EntityLease | None = None) -> dict[str, int]:
        """One pass over every rule; returns the rows deleted per rule."""
        now = self._clock.now()
        deleted: dict[str, int] = {}
        for rule in self._rules:
            old_at = cutoff(now, rule.keep)
            deleted[rule.name] = 0
            while True:
                count = await rule.purger.purge_older_than(old_at, self._batch)
                deleted[rule.name] += count
                if count < self._batch:
                    break
                if lease is not None and not await lease.renew():
                    logger.info("retention pass handed over after %s", deleted)
                    return deleted
                await asyncio.sleep(0)  # other work runs between batches
        if any(deleted.values()):
            logger.info("retention purged %s", deleted)
        return deleted

    async def run_forever(self) -> None:
        while True:
            lease = self._leases("job", self.name)
            try:
                if await lease.acquire(0):
                    try:
                        await self.run_once(lease)
                    finally:
                        await lease.release()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweep must survive outages and try again
                logger.exception("retention sweep failed; retrying in %.0f s", self.interval)
            # Sleeps between passes; cancelled at shutdown.
            await asyncio.sleep(self.interval)
