"""Unit tests for EntityActor: turn order, failure propagation, lease handling and stopping."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from core_server.actors import ActorStopped, EntityActor, EntityBusy, EntityLease, LeaseLost
from tests.fakes import FakeLease

Step = Callable[[], Awaitable[Any]]


class StopsActor(Exception):
    """Stands in for the storage's StaleFence."""

    stops_actor = True


class RecordingActor(EntityActor):
    """Messages are values (echoed) or zero-argument async callables (awaited, their result returned)."""

    def __init__(self, lease: EntityLease | None, **kwargs: Any) -> None:
        super().__init__("ent_1", lease, **kwargs)
        self.received: list[Any] = []
        self.activations = 0
        self.deactivations = 0
        self.activate_error: Exception | None = None

    async def on_activate(self) -> None:
        self.activations += 1
        if self.activate_error is not None:
            raise self.activate_error

    async def on_deactivate(self) -> None:
        self.deactivations += 1

    async def receive(self, message: Any) -> Any:
        self.received.append(message)
        if callable(message):
            return await message()
        return message


@pytest.fixture
async def no_leftover_tasks() -> AsyncIterator[None]:
    yield
    me = asyncio.current_task()
    leftover = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
    assert leftover == []


pytestmark = pytest.mark.usefixtures("no_leftover_tasks")


def started(lease: FakeLease | None = None, **kwargs: Any) -> RecordingActor:
    actor = RecordingActor(lease, **kwargs)
    actor.start()
    return actor


async def eventually(predicate: Callable[[], bool], within: float = 0.5) -> None:
    """Poll state that other tasks change; fails the test if it does not hold `within` seconds."""
    async with asyncio.timeout(within):
        while not predicate():  # noqa: ASYNC110 - polling state owned by the code under test
            await asyncio.sleep(0.001)


async def test_messages_are_handled_in_arrival_order() -> None:
    actor = started(FakeLease())
    results = await asyncio.gather(*(actor.ask(i) for i in range(20)))
    assert results == list(range(20))
    assert actor.received == list(range(20))
    actor.stop()
    await actor.wait_stopped()


async def test_turns_never_interleave_even_when_a_handler_awaits() -> None:
    actor = started(FakeLease())
    trace: list[str] = []

    def step(i: int) -> Step:
        async def run() -> int:
            trace.append(f"start {i}")
            await asyncio.sleep(0.002)  # other asks arrive and the renew task runs here
            trace.append(f"end {i}")
            return i

        return run

    await asyncio.gather(*(actor.ask(step(i)) for i in range(5)))
    assert trace == [f"{edge} {i}" for i in range(5) for edge in ("start", "end")]
    actor.stop()
    await actor.wait_stopped()


async def test_an_exception_goes_to_its_caller_and_the_actor_keeps_working() -> None:
    actor = started(FakeLease())

    async def boom() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        await actor.ask(boom)
    assert await actor.ask("next") == "next"
    assert actor.accepting
    actor.stop()
    await actor.wait_stopped()


async def test_a_stops_actor_exception_fails_queued_asks_with_actor_stopped_and_releases_the_lease() -> None:
    lease = FakeLease()
    actor = started(lease)
    gate = asyncio.Event()

    async def stale_write() -> None:
        await gate.wait()
        raise StopsActor("fence moved on")

    first = asyncio.create_task(actor.ask(stale_write))
    queued = [asyncio.create_task(actor.ask(i)) for i in range(3)]
    await eventually(lambda: len(actor.received) == 1)
    gate.set()
    with pytest.raises(StopsActor):
        await first
    for ask in queued:
        with pytest.raises(ActorStopped):
            await ask
    await actor.wait_stopped()
    assert actor.received == [stale_write]
    assert actor.deactivations == 1
    assert not lease.held and lease.release_calls == 1
    with pytest.raises(ActorStopped):
        await actor.ask("late")


async def test_a_busy_lease_fails_asks_with_entity_busy_and_receive_is_never_called() -> None:
    lease = FakeLease()
    lease.steal("other-process")
    actor = started(lease, acquire_wait=0.02)
    asks = [asyncio.create_task(actor.ask(i)) for i in range(3)]
    for ask in asks:
        with pytest.raises(EntityBusy):
            await ask
    await actor.wait_stopped()
    assert actor.received == [] and actor.activations == 0
    assert lease.store[lease.key] == "other-process"  # never released someone else's lease


async def test_an_acquire_error_goes_to_every_pending_ask() -> None:
    lease = FakeLease()
    lease.acquire_error = ConnectionError("redis down")
    actor = started(lease)
    with pytest.raises(ConnectionError):
        await actor.ask("x")
    await actor.wait_stopped()
    assert actor.received == []


async def test_a_failed_renewal_fails_queued_asks_with_lease_lost_and_lets_the_turn_finish() -> None:
    lease = FakeLease()
    actor = started(lease, renew_interval=0.005)
    gate = asyncio.Event()

    async def slow() -> str:
        await gate.wait()
        return "finished"

    in_flight = asyncio.create_task(actor.ask(slow))
    queued = [asyncio.create_task(actor.ask(i)) for i in range(2)]
    await eventually(lambda: len(actor.received) == 1 and lease.renew_calls >= 1)
    lease.renew_ok = False
    await eventually(lambda: not actor.accepting)
    for ask in queued:
        with pytest.raises(LeaseLost):
            await ask
    assert not in_flight.done()
    gate.set()
    assert await in_flight == "finished"
    await actor.wait_stopped()
    assert actor.received == [slow]
    assert actor.deactivations == 1 and lease.release_calls == 1


async def test_an_on_activate_failure_fails_pending_asks_and_receive_is_never_called() -> None:
    lease = FakeLease()
    actor = RecordingActor(lease)
    actor.activate_error = LookupError("no such charge")
    asks = [asyncio.create_task(actor.ask(i)) for i in range(2)]
    await asyncio.sleep(0)  # both asks are queued before the actor activates
    actor.start()
    for ask in asks:
        with pytest.raises(LookupError):
            await ask
    await actor.wait_stopped()
    assert actor.received == [] and actor.deactivations == 0
    assert not lease.held and lease.release_calls == 1


async def test_stop_lets_the_turn_in_flight_finish_and_fails_queued_asks() -> None:
    lease = FakeLease()
    actor = started(lease)
    gate = asyncio.Event()

    async def slow() -> str:
        await gate.wait()
        return "done"

    in_flight = asyncio.create_task(actor.ask(slow))
    queued = asyncio.create_task(actor.ask("queued"))
    await eventually(lambda: len(actor.received) == 1)
    actor.stop()
    with pytest.raises(ActorStopped):
        await queued
    gate.set()
    assert await in_flight == "done"
    await actor.wait_stopped()
    assert not lease.held and actor.deactivations == 1


async def test_an_idle_actor_passivates_and_releases_its_lease() -> None:
    lease = FakeLease()
    actor = RecordingActor(lease)
    actor.start(idle_timeout=0.01)
    assert await actor.ask("x") == "x"
    await actor.wait_stopped()
    assert actor.deactivations == 1 and not lease.held
    assert not actor.accepting


async def test_a_caller_that_gave_up_while_queued_never_has_its_message_run() -> None:
    actor = started(FakeLease())
    gate = asyncio.Event()

    async def slow() -> str:
        await gate.wait()
        return "slow"

    first = asyncio.create_task(actor.ask(slow))
    await eventually(lambda: len(actor.received) == 1)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await actor.ask("abandoned")
    gate.set()
    assert await first == "slow"
    assert await actor.ask("after") == "after"
    assert actor.received == [slow, "after"]
    actor.stop()
    await actor.wait_stopped()


async def test_an_actor_without_a_lease_serves_messages() -> None:
    actor = started(None)
    assert await actor.ask(1) == 1
    actor.stop()
    await actor.wait_stopped()
    assert actor.deactivations == 1
