"""A lease lost in a Redis Sentinel failover cannot let its stale owner write (DESIGN §8, §10.8).

Replication from the master to its replica is asynchronous. A lease taken on the master just before it
dies may never reach the replica Sentinel promotes: the lease is gone although its TTL has not run out,
so a second process takes the same entity at once while the first still believes it owns it. Only the
fence in PostgreSQL stands between the first process and a lost update; here it is put to that test
with a real master, replica and sentinel, and the core's own Sentinel client and charge repository.
"""

from __future__ import annotations

import asyncio
import copy
import time

import pytest

from core_server.actors.lease import EntityLease
from core_server.bootstrap import Core
from core_server.db.errors import StaleFence
from core_server.kernel.application.ports import TurnWrite
from core_server.locking.errors import LockServiceUnavailable
from core_server.locking.redis_client import close_redis, connect_redis
from core_server.locking.redis_lease import RedisLeaseFactory
from core_server.payments.domain.charge import ChargeStatus
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.factories import authorized_charge, new_owner
from tests.support.private_services import wait_until
from tests.support.redis_sentinel import SERVICE, redis_with_sentinels

pytestmark = pytest.mark.integration

LEASE_TTL_MS = 30_000  # far longer than the test: only the switch can lose the lease


async def _acquire_once_the_client_follows(lease: EntityLease, within: float = 10.0) -> bool:
    """Sentinel may name the new master a moment before it reports it healthy: until then the client
    cannot reach any master (LockServiceUnavailable), as a core's next request would find."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if await lease.acquire(0):
                return True
        except LockServiceUnavailable:
            pass
        await asyncio.sleep(0.05)
    return False


async def test_a_lease_lost_in_the_switch_is_taken_at_once_and_the_stale_owner_is_fenced(
    core: Core, redis_namespace: str
) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    repo = PgChargeRepository(core.pool)
    with redis_with_sentinels(sentinel_count=1) as group:
        sentinels = tuple(("127.0.0.1", port) for port in group.ports)
        clients = [
            connect_redis(
                "redis://sentinel-managed/0", max_connections=4, sentinels=sentinels, service=SERVICE
            )
            for _ in range(2)
        ]
        leases_a, leases_b = (
            RedisLeaseFactory(client, namespace=redis_namespace, ttl_ms=LEASE_TTL_MS, owner=name)
            for client, name in zip(clients, ("process-a", "process-b"), strict=True)
        )
        try:
            # The replica lags behind: process A's lease is written to the master only.
            group.cut_replication()
            lease_a = leases_a("charge", charge.id)
            assert await lease_a.acquire(0)
            taken_at = time.monotonic()
            state_a, fence_a = await repo.load_for_activation(charge.id)  # type: ignore[misc]
            old_master = group.master.port
            group.master.stop()
            group.thaw_replica()
            await asyncio.to_thread(
                wait_until,
                lambda: group.master_port() not in (None, old_master),
                10.0,
                what="Sentinel promoting the replica",
            )

            # On the new master the lease is simply not there: B takes it at once, long before its TTL.
            lease_b = leases_b("charge", charge.id)
            assert await _acquire_once_the_client_follows(lease_b), "B never took the lease"
            assert time.monotonic() - taken_at < LEASE_TTL_MS / 1000
            state_b, fence_b = await repo.load_for_activation(charge.id)  # type: ignore[misc]
            assert fence_b > fence_a
            newer = copy.deepcopy(state_b)
            newer.void(state_b.created)
            await repo.save(newer, fence_b, TurnWrite(core.views.events(newer)))

            # A still believes it owns the charge and writes what it decided: the fence refuses it.
            stale = copy.deepcopy(state_a)
            stale.capture(None, state_a.created)
            with pytest.raises(StaleFence):
                await repo.save(stale, fence_a, TurnWrite(core.views.events(stale)))
            # And its next renewal tells it the lease is gone, so its actor stops.
            assert await lease_a.renew() is False
            await lease_b.release()
        finally:
            group.replica.thaw()
            for client in clients:
                await close_redis(client)

    stored = await repo.get(charge.id)
    assert stored is not None
    assert stored.status is ChargeStatus.VOIDED
    assert stored.amount_captured is None
