"""Stopping background tasks whose first cancel a client library swallows (core_server/task_stop.py): the
task is cancelled again until it ends, so a shutdown never waits forever. The swallowing here is a stand-in
for redis-py's (measured in tests/integration/test_redis_lease.py): a call that returns normally when a
cancel lands in it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.heartbeat import CoreHeartbeat
from core_server.task_stop import cancel_and_wait


class SwallowsFirstCancel:
    """A client call that returns normally when the first cancel lands in it, as a library that loses a
    cancel does; a later one propagates (the real window is short, so a second cancel misses it)."""

    def __init__(self) -> None:
        self.swallowed = 0

    async def __call__(self) -> None:
        try:
            await asyncio.sleep(0.02)
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed += 1


async def test_a_loop_whose_first_cancel_is_swallowed_still_ends() -> None:
    call = SwallowsFirstCancel()

    async def loop() -> None:
        while True:
            await call()
            await asyncio.sleep(0.01)

    task = asyncio.ensure_future(loop())
    await asyncio.sleep(0.005)  # inside the first call
    await asyncio.wait_for(cancel_and_wait(task, recancel=0.05), timeout=2.0)
    assert task.cancelled() and call.swallowed == 1


async def test_errors_of_the_stopped_tasks_are_dropped_and_done_tasks_are_left_alone() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    failed = asyncio.ensure_future(fails())
    await asyncio.sleep(0)
    finished = asyncio.ensure_future(asyncio.sleep(0))
    await finished
    await cancel_and_wait(failed, finished)  # no error raised, nothing logged as never retrieved
    assert isinstance(failed.exception(), RuntimeError) and not finished.cancelled()


async def test_the_heartbeat_stops_even_when_its_beat_swallows_the_cancel() -> None:
    """The CI hang: the heartbeat's stop cancelled once and waited; the beat lost the cancel, so the loop
    went on beating every interval and the stop never returned."""
    beats: list[datetime] = []
    beating = asyncio.Event()
    forgotten = asyncio.Event()
    call = SwallowsFirstCancel()

    async def beat(now: datetime) -> None:
        beats.append(now)
        if len(beats) >= 3:
            beating.set()
        await call()

    async def purge_before(_: datetime) -> int:
        return 0

    async def forget() -> None:
        forgotten.set()

    heartbeat = CoreHeartbeat(
        beat, purge_before, forget, SettableClock(datetime(2026, 11, 24, tzinfo=UTC)), interval=0.01
    )
    await heartbeat.start()
    await beating.wait()  # inside the third beat, which swallows the stop's first cancel
    await asyncio.wait_for(heartbeat.stop(), timeout=2.0)
    assert forgotten.is_set() and call.swallowed == 1
