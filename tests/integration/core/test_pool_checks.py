"""The pool skips its validating round trip only for a connection that worked a moment ago."""

from __future__ import annotations

import psycopg
import pytest

from core_server.db import pool as pool_module
from core_server.db.pool import DbPool, open_pool

pytestmark = pytest.mark.integration


async def _backend_pid(pool: DbPool) -> int:
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT pg_backend_pid() AS pid")).fetchone()
    assert row is not None
    return int(row["pid"])


async def _terminate(database_url: str, pid: int) -> None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
        await admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


async def test_an_idle_dead_connection_is_checked_and_replaced(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "RECENTLY_USED_SECONDS", 0.0)  # every connection counts as idle
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        first = await _backend_pid(pool)
        await _terminate(database_url, first)
        assert await _backend_pid(pool) != first  # the check found it dead: no request failed
    finally:
        await pool.close()


async def test_a_just_used_dead_connection_fails_one_request_then_the_pool_recovers(
    database_url: str,
) -> None:
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        first = await _backend_pid(pool)
        await _terminate(database_url, first)
        with pytest.raises(psycopg.OperationalError):  # handed out unchecked: the documented price
            await _backend_pid(pool)
        assert await _backend_pid(pool) != first
    finally:
        await pool.close()
