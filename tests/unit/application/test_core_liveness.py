"""CoreLiveness: the heartbeat rule an acquirer applies to a lease's holder (DESIGN §10.9)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.heartbeat import CoreLiveness

LAPSE = timedelta(seconds=3)


class Beats:
    def __init__(self) -> None:
        self.last_seen: dict[str, datetime] = {}
        self.reads: list[tuple[str, datetime]] = []
        self.failing = False

    async def beat_since(self, process: str, alive_since: datetime) -> bool:
        self.reads.append((process, alive_since))
        if self.failing:
            raise ConnectionError("postgres away")
        seen = self.last_seen.get(process)
        return seen is not None and seen > alive_since


def liveness() -> tuple[CoreLiveness, Beats, SettableClock]:
    clock = SettableClock(datetime(2026, 1, 1, tzinfo=UTC))
    beats = Beats()
    return CoreLiveness(beats.beat_since, clock, lapse=LAPSE, recheck=0.25), beats, clock


async def test_a_core_that_beat_within_the_lapse_is_alive_and_one_that_did_not_has_lapsed() -> None:
    check, beats, clock = liveness()
    beats.last_seen["core-a"] = clock.now() - timedelta(seconds=2)
    beats.last_seen["core-b"] = clock.now() - timedelta(seconds=4)
    assert not await check.lapsed("core-a")
    assert await check.lapsed("core-b")
    assert await check.lapsed("core-never-beat")  # no row: shut down or never started
    assert beats.reads[0] == ("core-a", clock.now() - LAPSE)


async def test_a_live_holder_is_read_again_only_after_the_recheck_interval() -> None:
    check, beats, clock = liveness()
    beats.last_seen["core-a"] = clock.now()
    assert not await check.lapsed("core-a")
    assert not await check.lapsed("core-a")
    assert len(beats.reads) == 1
    clock.advance(timedelta(seconds=4))  # core-a stopped beating
    assert await check.lapsed("core-a")
    assert len(beats.reads) == 2


async def test_a_failed_read_presumes_the_holder_alive() -> None:
    check, beats, _ = liveness()
    beats.failing = True
    assert not await check.lapsed("core-b")
