"""The pool skips its validating round trip only for a connection that worked a moment ago."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import _queries

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


async def test_a_long_statement_of_many_parameters_is_parsed_once(database_url: str) -> None:
    """core_server/db/query_cache.py: psycopg re-parsed every statement over 50 parameters or 4,096
    characters — every fenced save of a subscription — on each execution."""
    names = [f"p{i}" for i in range(80)]
    statement = "SELECT " + ", ".join(f"%({name})s::int AS {name}" for name in names) + " -- " + "x" * 5_000
    params = {name: i for i, name in enumerate(names)}
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        before = _queries._query2pg.cache_info()
        for _ in range(3):
            async with pool.connection() as conn:
                row = await (await conn.execute(statement, params)).fetchone()
            assert row is not None and row["p79"] == 79
        after = _queries._query2pg.cache_info()
        assert after.misses - before.misses == 1 and after.hits - before.hits == 2
    finally:
        await pool.close()


async def test_a_connection_is_back_in_the_pool_when_its_block_ends(database_url: str) -> None:
    """The return is done inline (no `reset` callback, which would hand every return to a worker task and
    keep the connection out of the pool until that task ran), and it notes the time `_check_if_idle`
    reads."""
    pool = await open_pool(database_url, min_size=1, max_size=1)
    try:
        async with pool.connection() as conn:
            await conn.execute("SELECT 1")
        assert pool.get_stats()["pool_available"] == 1
        assert conn in pool_module._returned_at
    finally:
        await pool.close()
