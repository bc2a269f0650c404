"""IdempotentRunner with an in-memory store: when a claim is released, and when it must not be."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from core_server.actors import TurnInterrupted
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.ports import (
    ClaimOutcome,
    IdempotencyCompletion,
    IdempotencyRecord,
    IdempotencyRequest,
)
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.replays import StoredError

REQUEST = IdempotencyRequest("acct_1:test", "refund-1", "fp")
OTHER = IdempotencyRequest("acct_1:test", "refund-2", "fp")


class MemoryStore:
    """The store's states as a dict: key -> "in_progress" | "completed", each claim with its owner token."""

    def __init__(self) -> None:
        self.state: dict[str, str] = {}
        self.owners: dict[str, str] = {}
        self.log: list[str] = []

    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        if request.key in self.state:
            return IdempotencyRecord(ClaimOutcome.IN_PROGRESS)
        self.state[request.key] = "in_progress"
        self.owners[request.key] = f"owner-{len(self.log)}-{len(self.owners)}"
        return IdempotencyRecord(ClaimOutcome.CLAIMED, owner=self.owners[request.key])

    def take_over(self, request: IdempotencyRequest) -> None:
        """Another run took the claim (its lease or its core's heartbeat lapsed)."""
        self.owners[request.key] = "the-new-owner"

    def _held(self, key: str, owner: str | None) -> bool:
        return self.state.get(key) == "in_progress" and self.owners.get(key) == owner

    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        return IdempotencyRecord(ClaimOutcome.CLAIMED)

    async def complete(self, completion: IdempotencyCompletion) -> None:
        self.log.append("complete")
        if self._held(completion.key, completion.owner):
            self.state[completion.key] = "completed"

    async def store_error(self, request: IdempotencyRequest, error: StoredError, owner: str | None) -> None:
        if self._held(request.key, owner):
            self.state[request.key] = "completed"

    async def release(self, request: IdempotencyRequest, owner: str | None) -> None:
        self.log.append("release")
        if self._held(request.key, owner):
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

    def render(answer: str) -> bytes:
        return answer.encode()

    call = runner.run(REQUEST, render, write)  # bound first: create_task's context would widen T
    caller = asyncio.create_task(call)
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


async def test_a_run_whose_claim_was_taken_over_neither_releases_nor_completes_it(
    runner: IdempotentRunner, store: MemoryStore
) -> None:
    """The run's claim lapsed (its core looked dead) and a retry took it: the old run's release and its
    answer carry its own owner token, so the new owner's claim is left alone."""

    async def invalid_after_takeover(claim: Claim[str] | None) -> str:
        assert claim is not None and claim.owner is not None
        store.take_over(REQUEST)
        raise ParameterInvalid("amount must be positive", param="amount")

    with pytest.raises(ParameterInvalid):
        await runner.run(REQUEST, str.encode, invalid_after_takeover)
    assert store.state == {"refund-1": "in_progress"} and store.owners["refund-1"] == "the-new-owner"

    async def answers_after_takeover(claim: Claim[str] | None) -> str:
        assert claim is not None
        assert claim.completion("late").owner == claim.owner  # the turn's statement matches on it
        store.take_over(OTHER)
        return "late"

    answer = await runner.run(OTHER, str.encode, answers_after_takeover)
    assert answer == "late" and store.state["refund-2"] == "in_progress"
