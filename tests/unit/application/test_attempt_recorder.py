"""AttemptRecorder's group commit: the first attempt is written at once, the ones that finish while it is
written go together in the next statement, each caller gets its own answer, and a failed statement fails
exactly the attempts it carried."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

import pytest

from core_server.webhooks.application.attempt_recorder import AttemptRecorder
from core_server.webhooks.application.ports import AttemptRecord


def record(n: int) -> AttemptRecord:
    """Stands in for a record: the recorder never looks inside."""
    return cast(AttemptRecord, n)


class SlowStore:
    def __init__(self, fail_batch: int | None = None) -> None:
        self.batches: list[list[int]] = []
        self.fail_batch = fail_batch
        self.release = asyncio.Event()

    async def record_many(self, records: Sequence[AttemptRecord]) -> list[bool]:
        self.batches.append([cast(int, r) for r in records])
        await self.release.wait()  # the statement's round trip
        if len(self.batches) == self.fail_batch:
            raise ConnectionError("database away")
        return [cast(int, r) % 2 == 0 for r in records]


async def test_attempts_finishing_during_a_write_go_together_in_the_next_statement() -> None:
    store = SlowStore()
    recorder = AttemptRecorder(store.record_many)
    first = asyncio.create_task(recorder.record(record(0)))
    await asyncio.sleep(0)
    rest = [asyncio.create_task(recorder.record(record(n))) for n in range(1, 10)]
    await asyncio.sleep(0)
    store.release.set()
    answers = await asyncio.gather(first, *rest)
    assert store.batches == [[0], list(range(1, 10))]
    assert recorder.statements == 2
    assert answers == [n % 2 == 0 for n in range(10)]


async def test_a_failed_statement_fails_its_own_attempts_only() -> None:
    store = SlowStore(fail_batch=1)
    recorder = AttemptRecorder(store.record_many)
    first = asyncio.create_task(recorder.record(record(1)))
    await asyncio.sleep(0)
    second = asyncio.create_task(recorder.record(record(2)))
    await asyncio.sleep(0)
    store.release.set()
    with pytest.raises(ConnectionError):
        await first
    assert await second is True
    assert store.batches == [[1], [2]]


async def test_with_a_gather_window_the_first_attempt_waits_for_the_ones_finishing_just_after() -> None:
    store = SlowStore()
    store.release.set()
    recorder = AttemptRecorder(store.record_many, gather=0.05)
    first = asyncio.create_task(recorder.record(record(0)))
    await asyncio.sleep(0.01)
    later = [asyncio.create_task(recorder.record(record(n))) for n in (1, 2)]
    assert await asyncio.gather(first, *later) == [True, False, True]
    assert store.batches == [[0, 1, 2]]
