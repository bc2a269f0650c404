"""Clocks: real UTC time, and a settable clock for tests (DESIGN §8: time is a port)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.application.ports import Clock
from core_server.domain.environment import Environment


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


class SingleClock:
    """Every merchant and environment shares one clock; the per-merchant sandbox clock comes later."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    async def resolve(self, merchant_id: str, environment: Environment) -> Clock:
        return self._clock

    def system(self) -> Clock:
        return self._clock
