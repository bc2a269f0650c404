"""Idempotency claims against real PostgreSQL: the pool's time-outs, owner tokens, and liveness takeover.

A claim belongs to one run (its owner token) of one core (its heartbeat): the run that lost its claim can
neither release, complete nor write under it, and a claim whose core stopped beating is taken over at
once (docs/running.md).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from core_server.bootstrap import Core
from core_server.db.errors import StaleFence, StorageUnavailable, wraps_psycopg_errors
from core_server.db.pool import DbPool, open_pool
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.heartbeat import CoreHeartbeat
from core_server.kernel.application.ports import (
    ClaimOutcome,
    IdempotencyCompletion,
    IdempotencyRequest,
    TurnWrite,
)
from core_server.kernel.domain.replays import Replay, StoredError
from core_server.kernel.storage.heartbeats import PgHeartbeats
from core_server.kernel.storage.idempotency_store import (
    ClaimTakenOver,
    PgIdempotencyStore,
    complete_in_transaction,
)
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.refund import Refund
from core_server.payments.storage.charge_repository import PgChargeRepository
from tests.integration.core.factories import captured_charge, new_owner

pytestmark = pytest.mark.integration

LEASE = timedelta(seconds=61)  # past the core fixture's IDEMPOTENCY_CLAIM_SECONDS (60)


async def claim_row(pool: DbPool, request: IdempotencyRequest) -> dict[str, object] | None:
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT state, response, owner, process FROM idempotency_keys WHERE scope = %s AND key = %s",
            (request.scope, request.key),
        )
        return await cursor.fetchone()


async def refund_count(pool: DbPool, charge_id: str) -> int:
    async with pool.connection() as conn:
        cursor = await conn.execute("SELECT count(*) AS n FROM refunds WHERE charge_id = %s", (charge_id,))
        row = await cursor.fetchone()
    assert row is not None
    return int(row["n"])


async def test_pooled_connections_carry_the_time_outs_keepalives_and_no_jit(database_url: str) -> None:
    pool = await open_pool(
        database_url, min_size=1, max_size=1, statement_timeout=7, idle_in_transaction_timeout=9
    )
    try:
        async with pool.connection() as conn:
            shown = {}
            for name in (
                "statement_timeout",
                "idle_in_transaction_session_timeout",
                "client_connection_check_interval",
                "jit",
            ):
                row = await (await conn.execute("SHOW " + name)).fetchone()  # a fixed name, no input
                assert row is not None
                shown[name] = row[name]
            parameters = conn.info.get_parameters()
    finally:
        await pool.close()
    assert shown == {
        "statement_timeout": "7s",
        "idle_in_transaction_session_timeout": "9s",
        "client_connection_check_interval": "1s",
        "jit": "off",
    }
    assert (parameters["keepalives"], parameters["keepalives_idle"]) == ("1", "5")
    assert (parameters["keepalives_interval"], parameters["keepalives_count"]) == ("2", "3")


async def test_a_statement_past_the_timeout_fails_as_storage_unavailable(database_url: str) -> None:
    pool = await open_pool(database_url, min_size=1, max_size=1, statement_timeout=0.3)

    @wraps_psycopg_errors
    async def sleep_for(seconds: float) -> None:
        async with pool.connection() as conn:
            await conn.execute("SELECT pg_sleep(%s)", (seconds,))

    try:
        await sleep_for(0.05)  # below the time-out: fine
        with pytest.raises(StorageUnavailable, match="statement timeout"):
            await sleep_for(3)
        await sleep_for(0.05)  # the connection survives its cancelled statement
    finally:
        await pool.close()


async def test_a_taken_over_claim_is_never_released_or_completed_by_its_old_owner(
    core: Core, clock: SettableClock
) -> None:
    store = PgIdempotencyStore(core.pool)
    request = IdempotencyRequest("s", "taken-over", "fp")
    first = await store.claim(request, clock.now())
    second = await store.claim(request, clock.now() + LEASE)  # the first run's lease lapsed
    assert first.outcome is second.outcome is ClaimOutcome.CLAIMED
    assert first.owner and second.owner and first.owner != second.owner

    await store.release(request, first.owner)
    await store.complete(IdempotencyCompletion(request.scope, request.key, b"late", first.owner))
    await store.store_error(request, StoredError("invalid_request_error", "x", "late", None), first.owner)
    row = await claim_row(core.pool, request)
    assert row is not None and (row["state"], row["owner"]) == ("in_progress", second.owner)

    await store.complete(IdempotencyCompletion(request.scope, request.key, b"mine", second.owner))
    row = await claim_row(core.pool, request)
    assert row is not None and (row["state"], row["response"]) == ("completed", b"mine")


async def test_a_turn_whose_claim_was_taken_over_writes_nothing(core: Core, clock: SettableClock) -> None:
    """The old run stalled before its statement (a GC pause, a slow network) while a retry took its
    claim and refunded: the old run's statement finds the claim no longer its own and writes nothing."""
    owner = await new_owner(core)
    charge = await captured_charge(core, owner)
    store = PgIdempotencyStore(core.pool)
    repo = PgChargeRepository(core.pool, store)
    activated = await repo.load_for_activation(charge.id)
    assert activated is not None
    ours, fence = activated
    stalled = await repo.get(charge.id)  # the old run's copy of the same charge
    assert stalled is not None
    request = IdempotencyRequest(f"{owner.merchant_id}:test", "refund-stalled", "fp")
    old = await store.claim(request, clock.now())
    later = clock.now() + LEASE
    new = await store.claim(request, later)
    assert old.outcome is new.outcome is ClaimOutcome.CLAIMED

    ours.refund("re_takeover", 500, None, later)
    answer = IdempotencyCompletion(request.scope, request.key, b"takeover", new.owner)
    await repo.save(ours, fence, TurnWrite(completion=answer))

    stalled.refund("re_stalled", 500, None, later)
    late = IdempotencyCompletion(request.scope, request.key, b"stalled", old.owner)
    with pytest.raises(StaleFence):
        await repo.save(stalled, fence, TurnWrite(completion=late))
    assert await refund_count(core.pool, charge.id) == 1
    row = await claim_row(core.pool, request)
    assert row is not None and row["response"] == b"takeover"


async def test_a_refund_stalled_in_postgres_is_not_applied_twice_by_the_takeover(
    core: Core, clock: SettableClock, pg_pool: DbPool
) -> None:
    """A second connection holds the charge's row lock, so the refund's statement blocks with its claim
    held; the claim's lease lapses and a retry comes. The retry waits for the stalled statement (its
    claim row is locked by it) and then replays its answer: one refund, never two."""
    owner = await new_owner(core)
    charge = await captured_charge(core, owner)
    request = IdempotencyRequest(f"{owner.merchant_id}:test", "refund-in-pg", "fp")

    def render(result: tuple[Refund, Charge]) -> bytes:
        return result[0].id.encode()

    async def refund() -> tuple[Refund, Charge] | Replay:
        """As RefundCharge runs it (idempotent_rpc): claimed by the runner, completed by the charge's turn."""
        return await core.runner.run(
            request, render, lambda claim: core.charges.refund(owner, charge.id, 500, None, claim)
        )

    async with await psycopg.AsyncConnection.connect(core.settings.database_url) as blocker:
        async with blocker.transaction():
            await blocker.execute("SELECT 1 FROM charges WHERE id = %s FOR UPDATE", (charge.id,))
            first = asyncio.create_task(refund())
            await _until_blocked(pg_pool, charge.id)
            clock.advance(LEASE)  # the first run's claim has lapsed
            retry = asyncio.create_task(refund())
            await asyncio.sleep(0.5)
            assert not retry.done(), "the retry took the claim of a statement that may still commit"
        ran = await first
        replayed = await retry
    assert not isinstance(ran, Replay) and isinstance(replayed, Replay)
    assert replayed.response == ran[0].id.encode()
    assert await refund_count(core.pool, charge.id) == 1


async def _until_blocked(pool: DbPool, charge_id: str) -> None:
    """Waits until a backend waits on a lock (the refund's UPDATE behind the test's row lock)."""
    for _ in range(100):
        async with pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE '%%UPDATE charges%%' AND datname = current_database()"
            )
            row = await cursor.fetchone()
        if row is not None and row["n"] > 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the refund of {charge_id} never blocked on the row lock")


async def test_a_claim_of_a_core_that_stopped_beating_is_taken_over_at_once(
    core: Core, clock: SettableClock
) -> None:
    """A claim names its core; while the core beats, a retry hears `in progress`, and once its heartbeat
    is older than the lapse the retry takes the claim at once, long before the claim's lease."""
    heartbeats = PgHeartbeats(core.pool, "core-elsewhere-1")
    dead_core = PgIdempotencyStore(
        core.pool, process="core-elsewhere-1", heartbeat_lapse=timedelta(seconds=3)
    )
    retrying = PgIdempotencyStore(core.pool, process="core-here-2", heartbeat_lapse=timedelta(seconds=3))
    request = IdempotencyRequest("s", "owner-died", "fp")
    await heartbeats.beat(clock.now())
    assert (await dead_core.claim(request, clock.now())).outcome is ClaimOutcome.CLAIMED
    soon = clock.now() + timedelta(seconds=2)
    assert (await retrying.check(request, soon)).outcome is ClaimOutcome.IN_PROGRESS
    assert (await retrying.claim(request, soon)).outcome is ClaimOutcome.IN_PROGRESS
    lapsed = clock.now() + timedelta(seconds=4)  # no beat since: the core is dead; the lease runs to 60 s
    assert (await retrying.check(request, lapsed)).outcome is ClaimOutcome.CLAIMED
    other_body = IdempotencyRequest("s", "owner-died", "other")
    assert (await retrying.claim(other_body, lapsed)).outcome is ClaimOutcome.MISMATCH
    taken = await retrying.claim(request, lapsed)
    assert taken.outcome is ClaimOutcome.CLAIMED
    row = await claim_row(core.pool, request)
    assert row is not None and (row["owner"], row["process"]) == (taken.owner, "core-here-2")
    await heartbeats.forget()


async def test_a_transaction_completing_a_taken_over_claim_rolls_back(
    core: Core, clock: SettableClock
) -> None:
    """Writes that store their answer in a transaction of their own (a webhook endpoint's creation) do
    not commit once their claim is someone else's."""
    store = PgIdempotencyStore(core.pool)
    request = IdempotencyRequest("s", "endpoint-late", "fp")
    old = await store.claim(request, clock.now())
    new = await store.claim(request, clock.now() + LEASE)
    late = IdempotencyCompletion(request.scope, request.key, b"late", old.owner)
    with pytest.raises(ClaimTakenOver):
        async with core.pool.connection() as conn, conn.transaction():
            await conn.execute("INSERT INTO core_heartbeats (process, last_seen) VALUES ('probe', now())")
            await complete_in_transaction(conn, late)
    async with core.pool.connection() as conn:
        probe = await (await conn.execute("SELECT 1 FROM core_heartbeats WHERE process = 'probe'")).fetchone()
    assert probe is None  # rolled back with the answer
    row = await claim_row(core.pool, request)
    assert row is not None and (row["state"], row["owner"]) == ("in_progress", new.owner)


async def test_the_heartbeat_beats_until_stopped_and_then_forgets_its_core(pg_pool: DbPool) -> None:
    clock = SettableClock(datetime(2026, 11, 24, 12, 0, tzinfo=UTC))
    heartbeats = PgHeartbeats(pg_pool, "core-beating-1")
    heartbeat = CoreHeartbeat(
        heartbeats.beat, heartbeats.purge_before, heartbeats.forget, clock, interval=0.05
    )

    async def last_seen() -> datetime | None:
        async with pg_pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT last_seen FROM core_heartbeats WHERE process = %s", (heartbeats.process,)
            )
            row = await cursor.fetchone()
        return row["last_seen"] if row else None

    await heartbeat.start()
    assert await last_seen() == clock.now()  # beating before the core serves
    clock.advance(timedelta(seconds=5))
    for _ in range(40):
        if await last_seen() == clock.now():
            break
        await asyncio.sleep(0.05)
    assert await last_seen() == clock.now()  # renewed on its interval
    await heartbeat.stop()
    assert await last_seen() is None
