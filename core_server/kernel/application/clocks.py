"""Clocks: real UTC time, each merchant's sandbox clock in TEST, and a settable clock for tests.

No rule reads the wall clock (DESIGN §8): the application resolves the clock of the entity's merchant
and environment and passes `now` down. LIVE always runs on real time; TEST runs on real time plus the
merchant's offset, which only an advance changes (DESIGN §9).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from connect import errors

from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import AdvanceLimits, Clock, ClockOffsets, Clocks
from core_server.kernel.application.timer_sweep import TimerSweep
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Forbidden
from core_server.kernel.domain.sandbox_clock import (
    AdvanceLimit,
    check_advance_within,
    default_advance_limit,
    offset_after_advance,
)

logger = logging.getLogger(__name__)


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class SettableClock:
    """A clock tests move forward instead of sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self._now += delta

    def set(self, moment: datetime) -> None:
        self._now = moment


class OffsetClock:
    """Another clock shifted by a fixed offset: a merchant's sandbox time."""

    def __init__(self, base: Clock, offset: timedelta) -> None:
        self._base = base
        self.offset = offset

    def now(self) -> datetime:
        return self._base.now() + self.offset


class MerchantClocks:
    """Resolves the clock of a merchant's environment: real time in LIVE, the sandbox clock in TEST."""

    def __init__(self, base: Clock, offsets: ClockOffsets) -> None:
        self._base = base
        self._offsets = offsets

    async def resolve(self, merchant_id: str, environment: Environment) -> Clock:
        if environment is Environment.LIVE:
            return self._base
        offset = await self._offsets.get(merchant_id)
        return OffsetClock(self._base, offset) if offset else self._base

    def system(self) -> Clock:
        """Real time: leases, sweeps across merchants, webhook signature timestamps."""
        return self._base


class Owned(Protocol):
    """Anything that belongs to one merchant's environment: an `Owner`, a charge, a subscription, …"""

    @property
    def merchant_id(self) -> str: ...

    @property
    def environment(self) -> Environment: ...


async def merchant_now(clocks: Clocks, owned: Owned, *, whole_seconds: bool = False) -> datetime:
    """The one way a rule learns "now": the time of the owner's merchant and environment (real time in
    LIVE, the sandbox clock in TEST).

    `whole_seconds` drops the microseconds where the time is stored and shown as Unix seconds (billing
    objects, webhook endpoints), so what is compared later is what the API showed."""
    now = (await clocks.resolve(owned.merchant_id, owned.environment)).now()
    return now.replace(microsecond=0) if whole_seconds else now


class TestClockService:
    """`GET`/`POST /test_helpers/clock`: read and advance a merchant's TEST clock.

    An advance runs, before it answers, every timer that fell due for that merchant — expiries, holds,
    due authorizations, webhook retries — as if the time had passed, so the merchant's next read already
    shows the result, not whatever a background pass gets to later. One advance goes at most as far as
    the merchant's limit (DESIGN §10.5): billing tells it (`limits`), 2 years when nothing is wired.
    """

    def __init__(
        self,
        base: Clock,
        offsets: ClockOffsets,
        sweeps: Sequence[TimerSweep] = (),
        limits: AdvanceLimits | None = None,
    ) -> None:
        self._base = base
        self._offsets = offsets
        self._sweeps = list(sweeps)
        self._limits = limits

    def add_sweeps(self, sweeps: Sequence[TimerSweep]) -> None:
        self._sweeps.extend(sweeps)

    async def now(self, owner: Owner) -> datetime:
        _require_test(owner)
        return self._base.now() + await self._offsets.get(owner.merchant_id)

    async def advance(self, owner: Owner, to: int) -> datetime:
        _require_test(owner)
        current = await self._offsets.get(owner.merchant_id)
        real_now = self._base.now()
        offset = offset_after_advance(real_now, current, to)
        if offset != current:
            check_advance_within(to, await self._limit(owner.merchant_id, real_now + current))
            await self._offsets.set(owner.merchant_id, offset)
            for sweep in self._sweeps:
                await sweep.run_once(owner)
        return self._base.now() + offset

    async def _limit(self, merchant_id: str, test_now: datetime) -> AdvanceLimit:
        if self._limits is None:
            return default_advance_limit(test_now)
        return await self._limits.limit(merchant_id, test_now)


def _require_test(owner: Owner) -> None:
    if owner.environment is not Environment.TEST:
        raise Forbidden("The test clock exists only for test keys.", code=errors.TEST_MODE_ONLY.code)
