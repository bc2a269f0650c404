"""A paused owner whose Redis lease expired cannot overwrite the newer owner's state (DESIGN §8)."""

from __future__ import annotations

import asyncio
import copy
import dataclasses

import pytest
import redis.asyncio as aioredis

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.db.errors import StaleFence
from core_server.db.pool import DbPool
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.domain.errors import StateConflict
from core_server.locking.redis_lease import RedisLeaseFactory
from core_server.payments.domain.charge import ChargeStatus
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import authorized_charge, new_owner

pytestmark = pytest.mark.integration


async def test_stale_owner_write_is_refused_after_its_lease_expired(
    core: Core, redis_client: aioredis.Redis, redis_namespace: str
) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    repo = PgChargeRepository(core.pool)
    leases_a = RedisLeaseFactory(redis_client, namespace=redis_namespace, ttl_ms=150, owner="process-a")
    leases_b = RedisLeaseFactory(redis_client, namespace=redis_namespace, ttl_ms=5000, owner="process-b")

    lease_a = leases_a("charge", charge.id)
    assert await lease_a.acquire(0)
    state_a, fence_a = await repo.load_for_activation(charge.id)  # type: ignore[misc]

    # Process A pauses (GC, VM stall) past its TTL; B takes the lease and the fence.
    await asyncio.sleep(0.3)
    lease_b = leases_b("charge", charge.id)
    assert await lease_b.acquire(0)
    state_b, fence_b = await repo.load_for_activation(charge.id)  # type: ignore[misc]
    assert fence_b > fence_a

    newer = copy.deepcopy(state_b)
    newer.void(state_b.created)
    await repo.save(newer, fence_b, TurnWrite(core.views.events(newer)))

    # A wakes up and writes what it believes: a capture. The fence refuses it.
    stale = copy.deepcopy(state_a)
    stale.capture(None, state_a.created)
    with pytest.raises(StaleFence):
        await repo.save(stale, fence_a, TurnWrite(core.views.events(stale)))
    assert await lease_a.renew() is False

    stored = await repo.get(charge.id)
    assert stored is not None
    assert stored.status is ChargeStatus.VOIDED
    assert stored.amount_captured is None
    await lease_b.release()


async def test_a_stale_fence_stops_the_actor_and_the_next_ask_reloads(
    core_settings: Settings, clock: SettableClock, pg_pool: DbPool
) -> None:
    # Actors that stay active for the whole test: the capture below must meet the stale state held in
    # memory, not a fresh load (with the default 0.2 s idle time it could be either).
    core = await make_core(dataclasses.replace(core_settings, actor_idle_seconds=60.0), clock)
    try:
        owner = await new_owner(core)
        charge = await authorized_charge(core, owner)
        repo = PgChargeRepository(core.pool)
        # Another process activates the charge behind this core's back and voids it.
        other, fence = await repo.load_for_activation(charge.id)  # type: ignore[misc]
        other.void(other.created)
        await repo.save(other, fence, TurnWrite(core.views.events(other)))

        # The active actor captures its stale copy: the fenced save refuses it and the actor stops.
        with pytest.raises(StaleFence):
            await core.charges.capture(owner, charge.id, None, None)
        # The next ask activates it again from the row: the charge is voided, so the capture is refused.
        with pytest.raises(StateConflict):
            await core.charges.capture(owner, charge.id, None, None)
        stored = await core.charges.get(owner, charge.id)
        assert stored.status is ChargeStatus.VOIDED
        assert stored.amount_captured is None
    finally:
        await core.close()
