"""The core's liveness heartbeat: renews its row every CORE_HEARTBEAT_SECONDS while the process runs.

Claims on Idempotency-Keys name their core, and a core that stopped beating (SIGKILL, a lost host) has
its in-progress claims taken over by the next retry after CORE_HEARTBEAT_LAPSE_SECONDS, not after the
claim's whole lease. A beat that fails (PostgreSQL away) is retried on the next tick; should the lapse
pass meanwhile, the owner tokens make this core's late writes for taken-over claims impossible.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from core_server.kernel.application.ports import Clock
from core_server.task_stop import cancel_and_wait

logger = logging.getLogger(__name__)

STALE_ROWS = timedelta(days=1)
"""Heartbeat rows older than this (cores long gone) are purged, once an hour."""
_PURGE_EVERY = 3600


class CoreHeartbeat:
    def __init__(
        self,
        beat: Callable[[datetime], Awaitable[None]],
        purge_before: Callable[[datetime], Awaitable[int]],
        forget: Callable[[], Awaitable[None]],
        clock: Clock,
        *,
        interval: float,
    ) -> None:
        self._beat = beat
        self._purge_before = purge_before
        self._forget = forget
        self._task: asyncio.Task[None] | None = None
        self._clock = clock
        self._interval = interval

    async def beat_once(self) -> None:
        await self._beat(self._clock.now())

    async def start(self) -> None:
        """The first beat before the core serves (so its first claims are alive), then one per interval."""
        await self.beat_once()
        self._task = asyncio.create_task(self.run_forever(), name="core-heartbeat")

    async def stop(self) -> None:
        """At shutdown, after the actors drained (no turn of this core runs any more): stop beating and
        drop the row, so a claim left behind is taken over at once."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        try:
            await self._forget()
        except Exception:  # noqa: BLE001 - the row then lapses on its own
            logger.warning("could not remove the core heartbeat", exc_info=True)

    async def run_forever(self) -> None:
        ticks = 0
        while True:
            try:
                await self.beat_once()
                if ticks % max(1, round(_PURGE_EVERY / self._interval)) == 0:
                    await self._purge_before(self._clock.now() - STALE_ROWS)
            except Exception:  # noqa: BLE001 - the next tick tries again; a lapse is safe (owner tokens)
                logger.warning("core heartbeat failed", exc_info=True)
            ticks += 1
            await asyncio.sleep(self._interval)


class CoreLiveness:
    """Whether another core's heartbeat lapsed, for the actor leases it left behind (DESIGN §10.9).

    A core killed while holding leases would otherwise keep its entities until the leases' TTL; an
    acquirer that finds the holder's heartbeat lapsed takes the lease over at once, just as a retry takes
    over that core's idempotency claims (same lapse, same table). A holder seen alive is remembered for
    `recheck` seconds, so a contended entity polls PostgreSQL at most that often per holder; a failed
    read counts as alive (waiting out the TTL is always safe).
    """

    def __init__(
        self,
        beat_since: Callable[[str, datetime], Awaitable[bool]],
        clock: Clock,
        *,
        lapse: timedelta,
        recheck: float = 0.25,
    ) -> None:
        self._beat_since = beat_since
        self._clock = clock
        self._lapse = lapse
        self._recheck = timedelta(seconds=recheck)
        self._alive_until: dict[str, datetime] = {}

    async def lapsed(self, process: str) -> bool:
        now = self._clock.now()
        known = self._alive_until.get(process)
        if known is not None and now < known:
            return False
        try:
            alive = await self._beat_since(process, now - self._lapse)
        except Exception:  # noqa: BLE001 - PostgreSQL away: the holder is presumed alive
            logger.warning("could not read the heartbeat of %s", process, exc_info=True)
            alive = True
        if alive:
            if len(self._alive_until) > 1024:
                self._alive_until.clear()
            self._alive_until[process] = now + self._recheck
            return False
        self._alive_until.pop(process, None)
        return True
