"""Unit tests for ActorRegistry: activation, idle passivation, re-activation races, timeouts and stop_all."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import pytest

from core_server.actors import (
    ActorRegistry,
    ActorStopped,
    EntityActor,
    EntityBusy,
    EntityLease,
    TurnInterrupted,
)
from tests.fakes import FakeLease


class TracingActor(EntityActor):
    """Messages are values (echoed) or zero-argument async callables; lifecycle goes to a shared trace."""

    def __init__(self, entity_id: str, lease: EntityLease, trace: list[str], number: int) -> None:
        super().__init__(entity_id, lease, acquire_wait=0.05, renew_interval=0.01)
        self.trace = trace
        self.number = number
        self.deactivate_gate: asyncio.Event | None = None

    async def on_activate(self) -> None:
        self.trace.append(f"activate {self.entity_id}#{self.number}")

    async def on_deactivate(self) -> None:
        if self.deactivate_gate is not None:
            await self.deactivate_gate.wait()
        self.trace.append(f"deactivate {self.entity_id}#{self.number}")

    async def receive(self, message: Any) -> Any:
        self.trace.append(f"receive {self.entity_id}#{self.number} {message!r}")
        if callable(message):
            return await message()
        return message


class Harness:
    """A registry whose factory records every actor and lease it builds; leases share one store."""

    def __init__(self, idle_timeout: float = 0.02) -> None:
        self.store: dict[str, str] = {}
        self.trace: list[str] = []
        self.actors: list[TracingActor] = []
        self.leases: list[FakeLease] = []
        self.on_new_actor: Callable[[TracingActor], None] | None = None
        self.registry = ActorRegistry(self._build, idle_timeout=idle_timeout, name="test")

    def _build(self, entity_id: str) -> TracingActor:
        lease = FakeLease(f"lease:{entity_id}", ttl_ms=30, store=self.store)
        actor = TracingActor(entity_id, lease, self.trace, len(self.actors) + 1)
        self.leases.append(lease)
        self.actors.append(actor)
        if self.on_new_actor is not None:
            self.on_new_actor(actor)
        return actor

    def ask(self, entity_id: str, message: Any, timeout: float = 0.5) -> Coroutine[Any, Any, Any]:
        return self.registry.ask(entity_id, message, timeout)


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    h = Harness()
    yield h
    await h.registry.stop_all(grace=0.1)
    me = asyncio.current_task()
    assert [t for t in asyncio.all_tasks() if t is not me and not t.done()] == []
    assert h.store == {}  # every lease released


async def eventually(predicate: Callable[[], bool], within: float = 0.5) -> None:
    """Poll state that other tasks change; fails the test if it does not hold `within` seconds."""
    async with asyncio.timeout(within):
        while not predicate():  # noqa: ASYNC110 - polling state owned by the code under test
            await asyncio.sleep(0.001)


def blocker(gate: asyncio.Event, result: str = "done") -> Callable[[], Awaitable[str]]:
    async def run() -> str:
        await gate.wait()
        return result

    return run


async def test_concurrent_asks_share_one_activation_and_keep_their_order(harness: Harness) -> None:
    results = await asyncio.gather(*(harness.ask("ch_1", i) for i in range(10)))
    assert results == list(range(10))
    assert harness.registry.active_count == 1
    assert len(harness.actors) == 1
    assert harness.trace == ["activate ch_1#1", *(f"receive ch_1#1 {i}" for i in range(10))]


async def test_different_entities_get_their_own_actors(harness: Harness) -> None:
    gate = asyncio.Event()
    first = asyncio.create_task(harness.ask("ch_1", blocker(gate)))
    # ch_2 is served while ch_1's turn is still blocked.
    assert await harness.ask("ch_2", "x") == "x"
    assert harness.registry.active_count == 2
    gate.set()
    assert await first == "done"


async def test_idle_passivation_releases_the_lease_and_a_later_ask_reactivates(harness: Harness) -> None:
    assert await harness.ask("ch_1", "a") == "a"
    await eventually(lambda: harness.registry.active_count == 0)
    assert harness.store == {}
    assert await harness.ask("ch_1", "b") == "b"
    assert harness.trace == [
        "activate ch_1#1",
        "receive ch_1#1 'a'",
        "deactivate ch_1#1",
        "activate ch_1#2",
        "receive ch_1#2 'b'",
    ]


async def test_an_ask_arriving_during_deactivation_is_served_by_a_new_activation_after_release(
    harness: Harness,
) -> None:
    gate = asyncio.Event()

    def slow_first_deactivation(actor: TracingActor) -> None:
        actor.deactivate_gate = gate if actor.number == 1 else None

    harness.on_new_actor = slow_first_deactivation
    assert await harness.ask("ch_1", "a") == "a"
    first = harness.actors[0]
    await eventually(lambda: not first.accepting)  # idle: now blocked in on_deactivate
    late = asyncio.create_task(harness.ask("ch_1", "b"))
    await asyncio.sleep(0.02)
    assert not late.done()
    assert len(harness.actors) == 1 and harness.registry.active_count == 1  # never two live actors
    assert harness.leases[0].held
    gate.set()
    assert await late == "b"
    assert harness.trace[-3:] == ["deactivate ch_1#1", "activate ch_1#2", "receive ch_1#2 'b'"]
    assert harness.leases[0].release_calls == 1 and harness.leases[1].held


async def test_a_begun_turn_is_waited_for_past_the_deadline_and_a_queued_one_is_withdrawn(
    harness: Harness,
) -> None:
    """An idempotency claim is released when its ask fails: a TimeoutError must therefore mean "never
    ran", or a retry would run a write whose first run commits later (a double refund)."""
    gate = asyncio.Event()
    begun = asyncio.create_task(harness.ask("ch_1", blocker(gate), timeout=0.02))
    await eventually(lambda: any(line.startswith("receive") for line in harness.trace))
    with pytest.raises(TimeoutError):
        await harness.ask("ch_1", "queued-then-abandoned", timeout=0.01)
    await asyncio.sleep(0.05)  # well past the first ask's deadline
    assert not begun.done()
    gate.set()
    assert await begun == "done"  # the outcome of the turn, not a timeout
    assert await harness.ask("ch_1", "next") == "next"
    received = [line for line in harness.trace if line.startswith("receive")]
    assert len(received) == 2 and received[1] == "receive ch_1#1 'next'"  # the withdrawn one never ran


async def test_a_cancelled_caller_leaves_its_begun_turn_to_finish(harness: Harness) -> None:
    gate = asyncio.Event()
    finished: list[str] = []

    async def turn() -> str:
        await gate.wait()
        finished.append("turn")
        return "done"

    caller = asyncio.create_task(harness.ask("ch_1", turn))
    await eventually(lambda: any(line.startswith("receive") for line in harness.trace))
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    gate.set()
    await eventually(lambda: finished == ["turn"])


async def test_an_entity_held_by_another_process_gives_entity_busy_then_succeeds_once_free(
    harness: Harness,
) -> None:
    harness.store["lease:ch_1"] = "other-process"
    with pytest.raises(EntityBusy):
        await harness.ask("ch_1", "x", timeout=1.0)
    assert not any(line.startswith("receive") for line in harness.trace)
    await eventually(lambda: harness.registry.active_count == 0)
    del harness.store["lease:ch_1"]
    assert await harness.ask("ch_1", "y") == "y"


async def test_after_a_lost_lease_the_next_ask_gets_a_fresh_activation(harness: Harness) -> None:
    gate = asyncio.Event()
    in_flight = asyncio.create_task(harness.ask("ch_1", blocker(gate)))
    await eventually(lambda: len(harness.trace) == 2)
    harness.leases[0].renew_ok = False
    await eventually(lambda: not harness.actors[0].accepting)
    later = asyncio.create_task(harness.ask("ch_1", "after"))
    gate.set()
    assert await in_flight == "done"
    assert await later == "after"
    assert harness.trace[-1] == "receive ch_1#2 'after'"


async def test_stop_all_finishes_turns_fails_queued_asks_and_refuses_new_ones(harness: Harness) -> None:
    gate = asyncio.Event()
    in_flight = asyncio.create_task(harness.ask("ch_1", blocker(gate)))
    await eventually(lambda: len(harness.trace) == 2)
    queued = asyncio.create_task(harness.ask("ch_1", "queued"))
    await asyncio.sleep(0)
    stopping = asyncio.create_task(harness.registry.stop_all(grace=0.5))
    with pytest.raises(ActorStopped):
        await queued
    gate.set()
    assert await in_flight == "done"
    await stopping
    assert harness.registry.active_count == 0 and harness.store == {}
    with pytest.raises(ActorStopped):
        await harness.ask("ch_1", "late")


async def test_stop_all_cancels_turns_that_outlast_the_grace_and_still_releases(harness: Harness) -> None:
    stuck = asyncio.create_task(harness.ask("ch_1", blocker(asyncio.Event()), timeout=5))
    await eventually(lambda: len(harness.trace) == 2)
    await harness.registry.stop_all(grace=0.02)
    with pytest.raises(TurnInterrupted, match="outcome unknown"):
        await stuck
    assert harness.registry.active_count == 0 and harness.store == {}
