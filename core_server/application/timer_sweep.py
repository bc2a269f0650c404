"""Sweeps that apply the charge timers: expiry (every 5 minutes) and due asynchronous authorizations.

A sweep only finds candidates; each charge's actor applies `Charge.expire_if_due`, so the actor stays
the single writer and a second core running the same sweep changes nothing twice. A Redis lease per
sweep keeps several cores from scanning at the same moment.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from core_server.actors import ActorRegistry, LeaseFactory
from core_server.application.charge_commands import ExpireIfDue
from core_server.application.ports import Clocks

logger = logging.getLogger(__name__)

BATCH = 500
FindDue = Callable[[datetime, int], Awaitable[list[str]]]


class TimerSweep:
    def __init__(
        self,
        name: str,
        find_due: FindDue,
        actors: ActorRegistry,
        clocks: Clocks,
        leases: LeaseFactory,
        *,
        ask_timeout: float,
        interval: float,
    ) -> None:
        self.name = name
        self._find_due = find_due
        self._actors = actors
        self._clocks = clocks
        self._leases = leases
        self._ask_timeout = ask_timeout
        self.interval = interval

    async def run_once(self) -> int:
        """One pass; returns how many charges changed status."""
        now = self._clocks.system().now()
        changed = 0
        for charge_id in await self._find_due(now, BATCH):
            try:
                if await self._actors.ask(charge_id, ExpireIfDue(), timeout=self._ask_timeout):
                    changed += 1
            except Exception as exc:  # noqa: BLE001 - one stuck charge must not stop the sweep
                logger.warning("%s of %s deferred to the next pass: %s", self.name, charge_id, type(exc).__name__)
        if changed:
            logger.info("%s changed %d charges", self.name, changed)
        return changed

    async def run_forever(self) -> None:
        while True:
            lease = self._leases("job", self.name)
            try:
                if await lease.acquire(0):
                    try:
                        await self.run_once()
                    finally:
                        await lease.release()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the sweep must survive outages and try again
                logger.exception("%s failed; retrying in %.0f s", self.name, self.interval)
            # Sleeps between passes; cancelled at shutdown.
            await asyncio.sleep(self.interval)
