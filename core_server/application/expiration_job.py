"""The expiration sweep (every 5 minutes): pending > 24 h → expired, authorized > 7 days → voided.

The sweep only finds candidates; each charge's actor applies the rule, so the actor stays the
single writer and a second core running the same sweep changes nothing twice. A Redis lease on
the job keeps several cores from doing the same scan at the same moment.
"""

from __future__ import annotations

import asyncio
import logging

from core_server.actors import ActorRegistry, LeaseFactory
from core_server.application.charge_commands import ExpireIfDue
from core_server.application.ports import ChargeRepository, Clocks

logger = logging.getLogger(__name__)

SWEEP_INTERVAL_SECONDS = 300.0
BATCH = 500


class ExpirationJob:
    def __init__(
        self,
        charges: ChargeRepository,
        actors: ActorRegistry,
        clocks: Clocks,
        leases: LeaseFactory,
        *,
        ask_timeout: float,
        interval: float = SWEEP_INTERVAL_SECONDS,
    ) -> None:
        self._charges = charges
        self._actors = actors
        self._clocks = clocks
        self._leases = leases
        self._ask_timeout = ask_timeout
        self._interval = interval

    async def run_once(self) -> int:
        """One pass; returns how many charges changed status."""
        now = self._clocks.system().now()
        changed = 0
        for charge_id in await self._charges.due_for_expiry(now, BATCH):
            try:
                if await self._actors.ask(charge_id, ExpireIfDue(), timeout=self._ask_timeout):
                    changed += 1
            except Exception as exc:  # noqa: BLE001 - one stuck charge must not stop the sweep
                logger.warning("expiry of %s deferred to the next sweep: %s", charge_id, type(exc).__name__)
        if changed:
            logger.info("expiration sweep changed %d charges", changed)
        return changed

    async def run_forever(self) -> None:
        while True:
            lease = self._leases("job", "expiration")
            try:
                if await lease.acquire(0):
                    try:
                        await self.run_once()
                    finally:
                        await lease.release()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweep must survive outages and try again
                logger.exception("expiration sweep failed; retrying in %.0f s", self._interval)
            # Sleeps between passes; cancelled at shutdown.
            await asyncio.sleep(self._interval)
