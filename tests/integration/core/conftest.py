"""Core integration fixtures: a migrated pool on the session's real database, a real Redis, core wiring."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import psycopg
import pytest
import redis.asyncio as aioredis

from core_server.bootstrap import Core, build_core
from core_server.config import Settings
from core_server.db.migrate import apply_migrations
from core_server.db.pool import DbPool, open_pool
from core_server.kernel.application.clocks import SettableClock
from tests.support.services import create_test_database, drop_test_database

pytestmark = pytest.mark.integration

TABLES = (
    "webhook_deliveries, webhook_attempts, webhook_endpoints, events, refunds, disputes, charges, api_keys, "
    "subscription_notices, invoice_credits, pending_prorations, invoices, subscription_items, subscriptions, "
    "test_clocks, merchants, idempotency_keys, job_claims"
)


@contextlib.asynccontextmanager
async def migrated_pool(dsn: str) -> AsyncIterator[DbPool]:
    """A pool on a migrated database, emptied afterwards so the next test starts clean."""
    pool = await open_pool(dsn, min_size=1, max_size=10)
    await apply_migrations(pool)
    try:
        yield pool
    finally:
        await _empty(pool)
        await pool.close()


async def _empty(pool: DbPool) -> None:
    """TRUNCATE takes its locks table by table, so it can deadlock with a test's own second core still
    winding down on this database; the deadlock victim is retried."""
    for attempt in range(5):
        try:
            async with pool.connection() as conn:
                await conn.execute(f"TRUNCATE {TABLES} CASCADE")  # fixed list, no input
            return
        except psycopg.errors.DeadlockDetected:
            if attempt == 4:
                raise
            await asyncio.sleep(0.05 * (attempt + 1))


@pytest.fixture(scope="session")
def database_url(base_services: dict[str, str]) -> Iterator[str]:
    """The core tests' own database, not the session's: the e2e stack's core process stays up while these
    tests run and sweeps its database on the real clock, so a charge made here at the settable clock's
    time (days before today) would be expired or authorized by that process behind the test's back —
    its activation moves the fence, and the test's own actor then meets StaleFence."""
    dsn = create_test_database(base_services["DATABASE_URL"])
    try:
        yield dsn
    finally:
        drop_test_database(base_services["DATABASE_URL"], dsn)


@pytest.fixture
async def pg_pool(database_url: str) -> AsyncIterator[DbPool]:
    async with migrated_pool(database_url) as pool:
        yield pool


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_url, socket_timeout=2.0)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def clock() -> SettableClock:
    return SettableClock(datetime(2026, 11, 22, 12, 0, tzinfo=UTC))


@pytest.fixture
def core_settings(database_url: str, redis_url: str) -> Settings:
    return Settings.from_env(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "REDIS_NAMESPACE": f"itest{uuid.uuid4().hex[:8]}",
            "JWT_SIGNING_KEY": "integration-test-signing-key-0123456789",
            "DATA_ENCRYPTION_KEY": base64.b64encode(os.urandom(32)).decode(),
            "CHECKOUT_BASE_URL": "http://checkout.test",
            "LEASE_TTL_MS": "2000",
            "LEASE_WAIT_SECONDS": "5",
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",  # the receivers listen on 127.0.0.1
            # The tests drive the dispatcher themselves (drain, run_once), on their settable clock.
            "WEBHOOK_DISPATCH": "inline",
        }
    )


async def make_core(settings: Settings, clock: SettableClock) -> Core:
    return await build_core(settings, clock)


@pytest.fixture
async def core(core_settings: Settings, clock: SettableClock, pg_pool: DbPool) -> AsyncIterator[Core]:
    built = await make_core(core_settings, clock)
    try:
        yield built
    finally:
        await built.close()


@pytest.fixture(scope="module")
def isolated_database_url(services: dict[str, str]) -> Iterator[str]:
    """A database of this module alone: no core process of the session (whose webhook dispatcher
    would deliver these events on its own clock) ever connects to it."""
    dsn = create_test_database(services["DATABASE_URL"])
    try:
        yield dsn
    finally:
        drop_test_database(services["DATABASE_URL"], dsn)


@pytest.fixture
async def isolated_pool(isolated_database_url: str) -> AsyncIterator[DbPool]:
    async with migrated_pool(isolated_database_url) as pool:
        yield pool


@pytest.fixture
def isolated_settings(core_settings: Settings, isolated_database_url: str) -> Settings:
    """Short webhook time-outs, so hanging receivers cost a second, not ten."""
    return dataclasses.replace(
        core_settings,
        database_url=isolated_database_url,
        webhook_timeout_seconds=1.0,
        webhook_lease_seconds=30.0,
        webhook_concurrency=8,
        webhook_endpoint_concurrency=4,
    )


@pytest.fixture
async def isolated_core(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: DbPool
) -> AsyncIterator[Core]:
    built = await make_core(isolated_settings, clock)
    try:
        yield built
    finally:
        await built.close()
