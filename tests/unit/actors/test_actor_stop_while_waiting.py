"""A stop (the core's graceful shutdown) ends an actor's wait for a lease held elsewhere at once,
instead of letting the shutdown wait out the whole acquire wait for a turn that will never run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core_server.actors import ActorRegistry, ActorStopped, EntityActor, EntityLease
from tests.fakes import FakeLease


class Recording(EntityActor):
    def __init__(self, lease: EntityLease, **kwargs: Any) -> None:
        super().__init__("ent_1", lease, **kwargs)
        self.received: list[Any] = []

    async def receive(self, message: Any) -> Any:
        self.received.append(message)
        return message


async def test_stop_abandons_the_wait_for_a_busy_lease_and_leaves_the_holder_alone() -> None:
    lease = FakeLease()
    lease.steal("other-process")
    actor = Recording(lease, acquire_wait=30.0)
    actor.start()
    ask = asyncio.create_task(actor.ask("never runs"))
    await asyncio.sleep(0.01)  # the actor is polling for the lease now
    actor.stop()
    async with asyncio.timeout(0.5):  # not the 30 s acquire wait
        await actor.wait_stopped()
    with pytest.raises(ActorStopped):
        await ask
    assert actor.received == []
    assert lease.store[lease.key] == "other-process"


async def test_stop_all_returns_at_once_when_an_actor_only_waits_for_a_lease() -> None:
    store: dict[str, str] = {"lease:ent_1": "other-process"}
    registry = ActorRegistry(
        lambda entity_id: Recording(FakeLease(f"lease:{entity_id}", store=store), acquire_wait=30.0), name="t"
    )
    ask = asyncio.create_task(registry.ask("ent_1", "never runs", timeout=30.0))
    await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await registry.stop_all(grace=5.0)
    assert loop.time() - started < 0.5
    with pytest.raises(ActorStopped):
        await ask
    assert store == {"lease:ent_1": "other-process"} and registry.active_count == 0


async def test_a_lease_taken_just_as_the_stop_arrives_is_released() -> None:
    lease = FakeLease()
    actor = Recording(lease, acquire_wait=1.0)
    actor.start()
    actor.stop()  # before the consumer task has even run: acquire and stop race
    await actor.wait_stopped()
    assert lease.store == {} and actor.received == []
