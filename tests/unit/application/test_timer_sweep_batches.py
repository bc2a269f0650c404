"""A periodic pass claims its next batch while the last entities of the current one still run, keeps at
most two batches claimed, hands each back once run, and ends on a short batch or one that changed nothing;
a run after a clock advance runs its batches one after the other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.timer_sweep import TimerSweep
from core_server.kernel.domain.environment import Environment

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
BATCH = 4
PARALLEL = 2


class GatedWork:
    """Due work whose runs each wait for their own gate; it records what ran and when it was claimed."""

    def __init__(self, batches: list[list[str]], *, changes: bool = True) -> None:
        self._batches = batches
        self._changes = changes
        self.gates: dict[str, asyncio.Event] = {}
        self.running: set[str] = set()
        self.finished: list[str] = []
        self.claims: list[tuple[list[str], set[str]]] = []  # (the batch, what was running then)

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        due = self._batches.pop(0) if self._batches else []
        self.claims.append((due, set(self.running)))
        return due

    async def run(self, entity_id: str) -> bool:
        self.running.add(entity_id)
        gate = self.gates.setdefault(entity_id, asyncio.Event())
        try:
            await gate.wait()
        finally:
            self.running.discard(entity_id)
        self.finished.append(entity_id)
        return self._changes

    def open(self, *entity_ids: str) -> None:
        for entity_id in entity_ids:
            self.gates.setdefault(entity_id, asyncio.Event()).set()


class RecordedClaims:
    def __init__(self) -> None:
        self.released: list[list[str]] = []

    async def release(self, claim: JobClaim, entities: Sequence[str]) -> None:
        self.released.append(list(entities))


def sweep(work: GatedWork, claims: RecordedClaims) -> TimerSweep:
    return TimerSweep(
        "billing", work, SettableClock(NOW), claims, interval=60, batch=BATCH, parallel=PARALLEL
    )


async def until(condition: Callable[[], bool], deadline: float = 2.0) -> None:
    """Lets the sweep's tasks run until `condition` holds, failing after `deadline` seconds."""
    async with asyncio.timeout(deadline):
        while not condition():  # noqa: ASYNC110 - several conditions over the fake's state, no one event
            await asyncio.sleep(0)


async def test_the_next_batch_is_claimed_while_the_last_entities_of_the_current_one_run() -> None:
    first, second, third = ["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1"]
    work, claims = GatedWork([first, second, third]), RecordedClaims()
    pass_ = asyncio.create_task(sweep(work, claims).run_once())
    await until(lambda: work.running == {"a1", "a2"})
    work.open("a1", "a2")
    # a3 and a4 hold the two slots: every entity of the first batch is seated, so the second is claimed.
    await until(lambda: len(work.claims) == 2)
    assert work.claims[1] == (second, {"a3", "a4"})
    assert claims.released == []  # the first batch is still running: still claimed
    work.open("a3")
    await until(lambda: work.running == {"a4", "b1"})  # the freed slot went to the next batch at once
    work.open("a4", "b1", "b2", "b3", "b4", "c1")
    assert await asyncio.wait_for(pass_, 2.0) == 9
    assert claims.released == [first, second, third]
    assert len(work.claims) == 3  # the third batch came back short: the pass ended


async def test_a_batch_that_changed_nothing_ends_the_pass_a_batch_later() -> None:
    batches = [[f"{letter}{n}" for n in range(BATCH)] for letter in "abcd"]
    work, claims = GatedWork(list(batches), changes=False), RecordedClaims()
    work.open(*(entity for batch in batches for entity in batch))
    assert await asyncio.wait_for(sweep(work, claims).run_once(), 2.0) == 0
    assert len(work.claims) == 2  # the second was claimed before the first had ended, no more
    assert claims.released == [batches[0], batches[1]]


async def test_after_a_clock_advance_the_batches_run_one_after_the_other() -> None:
    first, second = ["a1", "a2", "a3", "a4"], ["b1"]
    work, claims = GatedWork([first, second]), RecordedClaims()
    owner = Owner("acct_1", Environment.TEST)
    pass_ = asyncio.create_task(sweep(work, claims).run_once(owner))
    await until(lambda: work.running == {"a1", "a2"})
    work.open("a1", "a2")
    await until(lambda: work.running == {"a3", "a4"})
    await asyncio.sleep(0.01)
    assert len(work.claims) == 1  # its due query would find a3 and a4 again
    work.open("a3", "a4", "b1")
    assert await asyncio.wait_for(pass_, 2.0) == 5
    assert work.claims[1] == (second, set())
    assert claims.released == []  # nothing was claimed
