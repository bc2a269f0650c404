"""A sweep with a schedule sleeps until the next scheduled moment when it comes before its interval."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.timer_sweep import WAKE_LATE, TimerSweep

NOW = datetime(2026, 11, 25, 23, 50, tzinfo=UTC)


class _Nothing:
    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> list[str]:
        return []

    async def run(self, entity_id: str) -> bool:
        return False


class NoClaims:
    async def release(self, claim: JobClaim, entities: Sequence[str]) -> None:
        return None


def sweep(wake: datetime | None) -> TimerSweep:
    async def next_wake(now: datetime) -> datetime:
        assert wake is not None
        return wake

    return TimerSweep(
        "daily",
        _Nothing(),
        SettableClock(NOW),
        NoClaims(),
        interval=3600,
        next_wake=None if wake is None else next_wake,
    )


async def test_midnight_ten_minutes_away_wakes_the_sweep_then() -> None:
    assert await sweep(NOW + timedelta(minutes=10))._pause() == 600 + WAKE_LATE  # noqa: SLF001


async def test_a_moment_past_the_interval_leaves_the_interval() -> None:
    assert await sweep(NOW + timedelta(hours=5))._pause() == 3600  # noqa: SLF001


async def test_without_a_schedule_the_interval() -> None:
    assert await sweep(None)._pause() == 3600  # noqa: SLF001
