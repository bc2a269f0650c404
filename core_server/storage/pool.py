"""The shared async connection pool: opened at start, closed at shutdown."""

from __future__ import annotations

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool


async def open_pool(dsn: str, *, min_size: int = 2, max_size: int = 20, timeout: float = 5.0) -> AsyncConnectionPool:
    """Autocommit connections; writes that must be atomic open `conn.transaction()` explicitly.

    `check` validates a connection on checkout, so a PostgreSQL restart costs one failed request,
    not a pool full of dead sockets.
    """
    pool: AsyncConnectionPool = AsyncConnectionPool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        open=False,
        check=AsyncConnectionPool.check_connection,
        kwargs={"autocommit": True, "row_factory": dict_row},
    )
    await pool.open(wait=True, timeout=timeout * 6)
    return pool
