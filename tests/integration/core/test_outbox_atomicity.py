"""Events, their deliveries and the NOTIFY commit with the state change or not at all (DESIGN §7)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg
import pytest

from core_server.bootstrap import Core
from core_server.db.errors import StaleFence
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL, append_events
from core_server.payments.domain.ids import new_refund_id
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.factories import captured_charge, new_owner

pytestmark = pytest.mark.integration


@asynccontextmanager
async def listening(dsn: str) -> AsyncIterator[psycopg.AsyncConnection[object]]:
    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    try:
        await conn.execute(f"LISTEN {DELIVERY_CHANNEL}")  # a constant identifier, no input
        yield conn
    finally:
        await conn.close()


async def notifications(conn: psycopg.AsyncConnection[object], wait: float) -> int:
    """Notifications within `wait` seconds, returning at the first one."""
    return len([n async for n in conn.notifies(timeout=wait, stop_after=1)])


async def counts(core: Core) -> tuple[int, int]:
    async with core.pool.connection() as conn:
        events = await (await conn.execute("SELECT count(*) AS n FROM events")).fetchone()
        deliveries = await (await conn.execute("SELECT count(*) AS n FROM webhook_deliveries")).fetchone()
    assert events is not None and deliveries is not None
    return events["n"], deliveries["n"]


async def test_a_charge_write_refused_by_a_stale_fence_emits_no_event_and_no_delivery(
    isolated_core: Core, isolated_database_url: str, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    await core.webhooks.create(owner, "http://127.0.0.1:9/hook", ["*"], None)
    charge = await captured_charge(core, owner)
    before = await counts(core)
    assert before == (2, 2)  # charge.created and charge.completed, one delivery each

    repo = PgChargeRepository(core.pool)
    stale, stale_fence = await repo.load_for_activation(charge.id)  # type: ignore[misc]
    await repo.load_for_activation(charge.id)  # another owner takes over: the fence moves
    stale.refund(new_refund_id(), 1_000, None, clock.now())
    assert [e.type for e in stale.pending_events] == ["charge.refunded"]
    async with listening(isolated_database_url) as listener:
        with pytest.raises(StaleFence):
            await repo.save(stale, stale_fence, TurnWrite(core.views.events(stale)))
        assert await notifications(listener, 0.3) == 0
    assert await counts(core) == before
    page = await core.events.list(owner, limit=10, type_filter="charge.refunded", starting_after=None)
    assert list(page.items) == []


async def test_a_transaction_that_fails_after_writing_its_events_leaves_nothing_behind(
    isolated_core: Core, isolated_database_url: str, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    await core.webhooks.create(owner, "http://127.0.0.1:9/hook", ["*"], None)
    now = clock.now()

    def event(suffix: str) -> OutboxEvent:
        event_id = f"evt_atomicity{suffix:0>15}"
        return OutboxEvent(
            event_id, "charge.created", "ch_x", {"id": event_id, "type": "charge.created"}, now
        )

    async with listening(isolated_database_url) as listener:
        with pytest.raises(RuntimeError):
            async with core.pool.connection() as conn, conn.transaction():
                assert await append_events(conn, owner.merchant_id, Environment.TEST, [event("1")]) == 1
                raise RuntimeError("the state change failed after its events were written")
        assert await notifications(listener, 0.3) == 0
        assert await counts(core) == (0, 0)

        # The same write committed: the event, its delivery and one wake-up.
        async with core.pool.connection() as conn, conn.transaction():
            await append_events(conn, owner.merchant_id, Environment.TEST, [event("2")])
        assert await notifications(listener, 2.0) >= 1
    assert await counts(core) == (1, 1)
