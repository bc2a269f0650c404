"""Retention against real PostgreSQL: old rows go in batches, newer and still-owed rows stay, and two
purgers at once delete each row once without waiting for each other."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from core_server.bootstrap import Core
from core_server.db.pool import DbPool
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.retention_sweep import RetentionRule, RetentionSweep
from core_server.kernel.storage.idempotency_purge import PURGE_IDEMPOTENCY_KEYS, PgIdempotencyPurge
from core_server.kernel.storage.job_claims import PgJobClaims
from core_server.webhooks.storage.event_purge import PURGE_EVENTS, PgEventPurge
from tests.integration.core.factories import new_charge, new_owner
from tests.integration.core.test_portal_sessions import RETURN_URL
from tests.integration.core.test_subscription_service import customer_with_card
from tests.webhook_receivers import WebhookReceiver, refused_url, start_receiver

pytestmark = pytest.mark.integration

_INSERT_KEY = """
INSERT INTO idempotency_keys (scope, key, fingerprint, state, created_at, locked_until)
VALUES ('retention-test', %(key)s, 'f', 'completed', %(at)s, %(at)s)
"""
_INSERT_EVENTS = """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
SELECT 'evt_old' || g, %(merchant)s, 'test', 'charge.created', 'ch_' || g, '{}'::jsonb,
       %(at)s - g * interval '1 second'
FROM generate_series(1, %(n)s) AS g
"""


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


async def _count(pool: DbPool, sql: str, *params: object) -> int:
    async with pool.connection() as conn:
        row = await (await conn.execute(sql, params)).fetchone()
        assert row is not None
        return int(row["n"])


async def _events_of(pool: DbPool, merchant_id: str) -> int:
    return await _count(pool, "SELECT count(*) AS n FROM events WHERE merchant_id = %s", merchant_id)


async def _rows(pool: DbPool, table: str) -> int:
    return await _count(pool, "SELECT count(*) AS n FROM " + table)  # fixed table names only


async def test_old_rows_go_with_their_deliveries_newer_and_pending_ones_stay(
    isolated_core: Core, isolated_pool: DbPool, clock: SettableClock, receiver: WebhookReceiver
) -> None:
    core, pool = isolated_core, isolated_pool
    start = clock.now()
    settled, owed = await new_owner(core), await new_owner(core)
    await core.webhooks.create(settled, receiver.url("/hook"), ["*"], None)
    await core.webhooks.create(owed, refused_url(), ["*"], None)
    await new_charge(core, settled)
    await new_charge(core, owed)
    await core.dispatcher.drain()  # settled's deliveries succeed; owed's fail and wait for a retry
    old_settled = await _events_of(pool, settled.merchant_id)
    assert old_settled > 0 and await _rows(pool, "webhook_attempts") > 0
    async with pool.connection() as conn:
        await conn.execute(_INSERT_KEY, {"key": "old", "at": start})

    clock.advance(timedelta(days=29))
    await new_charge(core, settled)  # 29 days old at the sweep: kept (its deliveries not yet sent)
    clock.advance(timedelta(days=1, hours=1))
    async with pool.connection() as conn:
        await conn.execute(_INSERT_KEY, {"key": "new", "at": clock.now() - timedelta(hours=23)})
    owed_events = await _events_of(pool, owed.merchant_id)
    owed_attempts = await _rows(pool, "webhook_attempts") - old_settled  # one success per old event

    deleted = await core.retention.run_once()

    assert deleted == {"idempotency_keys": 1, "events": old_settled, "portal_sessions": 0, "job_claims": 0}
    assert await _events_of(pool, settled.merchant_id) == old_settled  # the day-29 charge's events
    # The old events' deliveries and attempts went with them; the owed ones stay while pending.
    assert await _events_of(pool, owed.merchant_id) == owed_events
    assert await _rows(pool, "webhook_deliveries") == old_settled + owed_events
    assert await _rows(pool, "webhook_attempts") == owed_attempts
    keys = await _count(pool, "SELECT count(*) AS n FROM idempotency_keys WHERE key = 'new'")
    assert keys == 1 and await _rows(pool, "idempotency_keys") == 1

    async with pool.connection() as conn:  # the owed deliveries settle (they fail for good)
        await conn.execute("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL")
    assert await core.retention.run_once() == {
        "idempotency_keys": 0,
        "events": owed_events,
        "portal_sessions": 0,
        "job_claims": 0,
    }
    assert await _events_of(pool, owed.merchant_id) == 0


async def test_two_purgers_at_once_delete_each_row_once_and_never_wait_for_each_other(
    isolated_core: Core, isolated_pool: DbPool, clock: SettableClock
) -> None:
    core, pool = isolated_core, isolated_pool
    owner = await new_owner(core)
    old_at = clock.now() - timedelta(days=31)
    async with pool.connection() as conn:
        await conn.execute(_INSERT_EVENTS, {"merchant": owner.merchant_id, "at": old_at, "n": 2500})
        for n in range(300):
            await conn.execute(_INSERT_KEY, {"key": f"k{n}", "at": old_at})
    keep = timedelta(days=30)
    cut: datetime = clock.now() - keep

    # A purger mid-batch: its statement ran and holds its rows' locks, not yet committed.
    async with pool.connection() as held, held.transaction():
        first_events = (await held.execute(PURGE_EVENTS, {"cutoff": cut, "limit": 400})).rowcount
        first_keys = (await held.execute(PURGE_IDEMPOTENCY_KEYS, {"cutoff": cut, "limit": 100})).rowcount
        assert (first_events, first_keys) == (400, 100)

        def sweep() -> RetentionSweep:
            rules = [
                RetentionRule("events", keep, PgEventPurge(pool)),
                RetentionRule("idempotency_keys", keep, PgIdempotencyPurge(pool)),
            ]
            return RetentionSweep(rules, clock, PgJobClaims(pool), interval=60, batch=250)

        # Two purgers of one table at once, while the first still holds its rows: neither waits for it
        # nor for the other, and they share the rows.
        second, third = await asyncio.wait_for(
            asyncio.gather(
                PgEventPurge(pool).purge_older_than(cut, 1000), PgEventPurge(pool).purge_older_than(cut, 1000)
            ),
            10,
        )
        assert second > 0 and third > 0 and second + third + first_events <= 2500
        # Two sweeps at once: each rule is claimed by one of them, which purges what is left.
        fourth, fifth = await asyncio.wait_for(asyncio.gather(sweep().run_once(), sweep().run_once()), 10)
    for table in ("events", "idempotency_keys"):
        assert 0 in (fourth[table], fifth[table])  # one sweep per rule: the other found it claimed
    assert second + third + fourth["events"] + fifth["events"] + first_events == 2500
    assert fourth["idempotency_keys"] + fifth["idempotency_keys"] + first_keys == 300
    assert await _rows(pool, "events") == 0 and await _rows(pool, "idempotency_keys") == 0


async def test_rows_stamped_in_far_future_test_time_are_purged_by_their_real_age(
    isolated_core: Core, isolated_pool: DbPool, clock: SettableClock
) -> None:
    """DESIGN §10.5: a TEST clock moved ~2 years ahead stamps events and portal sessions there; they still
    go once their real age (the database's clock when they were written) passes the retention."""
    core, pool = isolated_core, isolated_pool
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT now() AS real_now")).fetchone()
        assert row is not None
        real_now: datetime = row["real_now"]
    clock.set(real_now)
    owner = await new_owner(core)
    far = await core.test_clock.now(owner) + timedelta(days=700)
    await core.test_clock.advance(owner, int(far.timestamp()))
    await new_charge(core, owner)
    await core.portal.create(owner, customer_id=await customer_with_card(core, owner), return_url=RETURN_URL)
    events = await _events_of(pool, owner.merchant_id)
    assert events > 0 and await _rows(pool, "portal_sessions") == 1
    stamped = await _count(
        pool,
        "SELECT count(*) AS n FROM events WHERE merchant_id = %s AND created_at > %s",
        owner.merchant_id,
        far - timedelta(minutes=1),
    )
    assert stamped == events  # every event carries the far-future TEST time

    # An hour on, the session is still young by real time; a day after its real expiry it goes, though
    # its TEST expiry is ~2 years ahead.
    clock.set(real_now + timedelta(hours=1))
    assert (await core.retention.run_once())["portal_sessions"] == 0
    clock.set(real_now + timedelta(days=1, hours=1, minutes=5))
    assert (await core.retention.run_once())["portal_sessions"] == 1
    assert await _rows(pool, "portal_sessions") == 0
    # 29 real days on, the events are too young; past the 30-day retention they go.
    clock.set(real_now + timedelta(days=29))
    assert (await core.retention.run_once())["events"] == 0
    clock.set(real_now + timedelta(days=30, minutes=5))
    assert (await core.retention.run_once())["events"] == events
    assert await _events_of(pool, owner.merchant_id) == 0
