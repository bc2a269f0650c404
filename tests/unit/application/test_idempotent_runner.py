"""IdempotentRunner with an in-memory store: when a claim is released, and when it must not be."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from core_server.actors import TurnInterrupted
from core_server.application.clocks import SettableClock
from core_server.application.idempotency import Claim, IdempotentRunner
from core_server.application.ports import (
    ClaimOutcome,
    IdempotencyCompletion,
    IdempotencyRecord,
    IdempotencyRequest,
    StoredError,
)
from core_server.domain.errors import ParameterInvalid

REQUEST = IdempotencyRequest("acct_1:test", "refund-1", "fp")


class MemoryStore:
    """The store's states as a dict: key -> "in_progress" | "completed"."""

    def __init__(self) -> None:
        self.state: dict[str, str] = {}
        self.log: list[str] = []

    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        if request.key in self.state:
            return IdempotencyRecord(ClaimOutcome.IN_PROGRESS)
        self.state[request.key] = "in_progress"
        return IdempotencyRecord(ClaimOutcome.CLAIMED)

    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        return IdempotencyRecord(ClaimOutcome.CLAIMED)

    async def complete(self, completion: IdempotencyCompletion) -> None:
        self.log.append("complete")
        if self.state.get(completion.key) == "in_progress":
            self.state[completion.key] = "completed"

    async def store_error(self, request: IdempotencyRequest, error: StoredError) -> None:
        self.state[request.key] = "completed"

    async def release(self, request: IdempotencyRequest) -> None:
        self.log.append("release")
        if self.state.get(request.key) == "in_progress":
            del self.state[request.key]


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def runner(store: MemoryStore) -> IdempotentRunner:
    return IdempotentRunner(store, SettableClock(datetime(2026, 1, 1, tzinfo=UTC)))


async def test_a_caller_that_leaves_does_not_release_the_claim_under_a_running_write(
    runner: IdempotentRunner, store: MemoryStore
) -> None:
    """The client's deadline cancels the call while the write is under way: releasing then would let
    the retry run the write again once the first one commits (the bench found a refund written twice
    over)."""
    committing = asyncio.Event()
    may_commit = asyncio.Event()

    async def write(claim: Claim[str] | None) -> str:
        assert claim is not None
        committing.set()
        await may_commit.wait()
        await store.complete(claim.completion("refund"))  # the answer, in the write's own statement
        return "refund"

    caller = asyncio.create_task(runner.run(REQUEST, str.encode, write))
    await committing.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert store.state == {"refund-1": "in_progress"}  # a retry now hears "in progress", not a fresh run
    may_commit.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert store.state == {"refund-1": "completed"} and "release" not in store.log


async def test_an_operation_that_fails_without_writing_releases_the_claim(
    runner: IdempotentRunner, store: MemoryStore
) -> None:
    async def invalid(claim: Claim[str] | None) -> str:
        raise ParameterInvalid("amount must be positive", param="amount")

    with pytest.raises(ParameterInvalid):
        await runner.run(REQUEST, str.encode, invalid)
    assert store.state == {} and store.log == ["release"]


async def test_an_interrupted_turn_keeps_its_claim(runner: IdempotentRunner, store: MemoryStore) -> None:
    """A hard stop cancelled the turn part-way: it may have written, so a retry must not run it again
    (the claim lapses after its lease instead)."""

    async def interrupted(claim: Claim[str] | None) -> str:
        raise TurnInterrupted("ch_1", "cancelled during its turn; outcome unknown")

    with pytest.raises(TurnInterrupted):
        await runner.run(REQUEST, str.encode, interrupted)
    assert store.state == {"refund-1": "in_progress"} and "release" not in store.log
