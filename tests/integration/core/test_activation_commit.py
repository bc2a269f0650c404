"""A subscription's activation takes its fence without waiting for a WAL flush of its own
(subscription_repository.py, `_FENCE_WITHOUT_FLUSH`): a billed subscription's first commit of four.

On a private PostgreSQL, where only this test writes WAL and the WAL writer is told to sleep: after a
commit that waited for its flush, everything inserted is flushed; after the activation, its own commit
record is still unflushed — and the fence it took is visible at once, so a stale holder is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import psycopg
import pytest
from psycopg import AsyncConnection
from psycopg.rows import DictRow

from core_server.billing.storage.subscription_repository import PgSubscriptionRepository
from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.db.errors import StaleFence
from core_server.db.pool import open_pool
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.ports import TurnWrite
from tests.integration.core.conftest import make_core, migrated_pool
from tests.integration.core.factories import new_owner
from tests.integration.core.test_billing_run import subscribe
from tests.support.private_services import private_postgres

pytestmark = pytest.mark.integration

ACTIVATIONS = 20

_UNFLUSHED = "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() AS unflushed"


async def unflushed_wal(conn: AsyncConnection[DictRow]) -> bool:
    """Whether WAL was inserted that is not flushed yet (on a server where only this test writes)."""
    row = await (await conn.execute(_UNFLUSHED)).fetchone()
    assert row is not None
    return bool(row["unflushed"])


@pytest.fixture
async def private_core(core_settings: Settings, clock: SettableClock) -> AsyncIterator[Core]:
    with private_postgres() as server:
        dsn = server.dsn()
        with psycopg.connect(dsn, autocommit=True) as conn:
            # The WAL writer flushes asynchronous commits every wal_writer_delay: 10 s outlasts the test.
            conn.execute("ALTER SYSTEM SET wal_writer_delay = '10s'")
            conn.execute("SELECT pg_reload_conf()")
        async with migrated_pool(dsn):
            core = await make_core(dataclasses.replace(core_settings, database_url=dsn), clock)
            try:
                yield core
            finally:
                await core.close()


async def test_an_activation_commits_its_fence_without_waiting_for_the_flush(private_core: Core) -> None:
    owner = await new_owner(private_core)
    subscription_id = await subscribe(private_core, owner)
    pool = await open_pool(private_core.settings.database_url, min_size=1, max_size=1)
    try:
        repo = PgSubscriptionRepository(pool)
        async with pool.connection() as probe:
            # A write that waits for its flush leaves nothing unflushed: the probe tells the two apart.
            await probe.execute("CREATE TABLE flushed (n int)")
            await probe.execute("INSERT INTO flushed VALUES (1)")
            assert not await unflushed_wal(probe)
        unflushed = 0
        fences = []
        state = None
        for _ in range(ACTIVATIONS):
            loaded = await repo.load_for_activation(subscription_id)
            assert loaded is not None
            state, fence = loaded
            fences.append(fence)
            async with pool.connection() as probe:
                unflushed += await unflushed_wal(probe)
        assert fences == list(range(fences[0], fences[0] + ACTIVATIONS))  # each took the fence
        assert unflushed >= ACTIVATIONS * 3 // 4
        # The fence is visible before it is flushed: the holder of the one before is refused.
        assert state is not None
        with pytest.raises(StaleFence):
            await repo.save(state, fence - 1, TurnWrite(events=[]))
    finally:
        await pool.close()
