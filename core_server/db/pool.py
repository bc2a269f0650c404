"""The shared async connection pool: opened at start, closed at shutdown."""

from __future__ import annotations

import logging
import math
import time
import weakref
from typing import Any, TypeAlias

from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool

from core_server.db.query_cache import widen_placeholder_cache

logger = logging.getLogger(__name__)

DbPool: TypeAlias = AsyncConnectionPool[AsyncConnection[DictRow]]
"""The pool `open_pool` returns: its connections make `dict_row`s, so a fetched row is a `dict[str, Any]`."""

RECONNECT_GIVE_UP_SECONDS = 2.0
"""After start, how long one background reconnection keeps backing off (1 s, 2 s, …) before it gives up.

psycopg_pool's backoff doubles without a cap for `reconnect_timeout` (5 minutes by default), so after a
PostgreSQL restart the pool could sit out a long delay while the server is back. Giving up early hands
reconnection to demand: the next request that finds no connection starts a new attempt at once.
"""


STATEMENT_TIMEOUT_SECONDS = 10.0
IDLE_IN_TRANSACTION_TIMEOUT_SECONDS = 15.0
KEEPALIVE_IDLE_SECONDS = 5
"""The defaults of DB_STATEMENT_TIMEOUT_SECONDS, DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS and
DB_KEEPALIVE_IDLE_SECONDS (docs/configuration.md)."""
KEEPALIVE_INTERVAL_SECONDS = 2
KEEPALIVE_COUNT = 3
CLIENT_CHECK_MS = 1000
"""PostgreSQL checks this often whether the client of a running statement is still connected."""


def session_options(statement_timeout: float, idle_in_transaction_timeout: float) -> dict[str, Any]:
    """Connection parameters that bound how long a connection can hold a turn (docs/running.md).

    A statement (or a lock wait) ends after `statement_timeout` and an abandoned transaction after
    `idle_in_transaction_timeout`, both below the Idempotency-Key claim's lease, so no write can commit
    after a retry took its claim over. TCP keepalives find a half-open socket (a vanished host) in
    idle + interval × count seconds instead of the system's two hours, and `client_connection_check_interval`
    lets PostgreSQL cancel the statement of a client that died (a SIGKILLed core) instead of running it
    to its end with the claim's row locked.

    `jit=off`: a server built with LLVM compiles a statement whose estimated cost passes
    `jit_above_cost`, which the sweeps' due queries do (their per-row subplans are costed high): the
    billing run's claim spent as long compiling as running, ≈ 120 ms of CPU per batch of 100 over
    10,000 due subscriptions (BENCHMARKS.md, "Speed, round 5"). No statement of the core runs long
    enough to win it back.
    """
    options = (
        f"-c statement_timeout={round(statement_timeout * 1000)}"
        f" -c idle_in_transaction_session_timeout={round(idle_in_transaction_timeout * 1000)}"
        f" -c client_connection_check_interval={CLIENT_CHECK_MS}"
        " -c jit=off"
    )
    return {"options": options, "keepalives": 1}


RECENTLY_USED_SECONDS = 1.0
"""A connection handed back within this long is given out again without the validating round trip."""

_returned_at: weakref.WeakKeyDictionary[AsyncConnection[Any], float] = weakref.WeakKeyDictionary()


class _CorePool(AsyncConnectionPool[AsyncConnection[DictRow]]):
    """psycopg_pool's pool, noting when each connection was handed back (for `_check_if_idle`).

    The note is taken in `putconn` rather than by a `reset` callback: with a `reset`, psycopg_pool hands
    every returned connection to a maintenance worker task (one queue put and one more task step per
    statement; BENCHMARKS.md, "Speed, round 4"), and the connection stays out of the pool until that
    task ran; without one, the return is done inline, as the pool does by default.
    """

    async def putconn(self, conn: AsyncConnection[DictRow]) -> None:
        _returned_at[conn] = time.monotonic()
        await super().putconn(conn)


async def _check_if_idle(conn: AsyncConnection[Any]) -> None:
    """psycopg_pool's check (an empty query), skipped for a connection that worked a moment ago.

    Under load every checkout used to pay that extra round trip (a quarter of a create's). A connection
    that just finished a statement is almost surely alive; if the server died in that second, the one
    request holding it fails as UNAVAILABLE and the pool drops the broken connection, exactly as for a
    request that was mid-statement when it died. Connections idle for longer are still checked, so a
    restart after a quiet spell costs nothing.
    """
    returned = _returned_at.get(conn)
    if returned is not None and time.monotonic() - returned < RECENTLY_USED_SECONDS:
        return
    await AsyncConnectionPool.check_connection(conn)


class PoolerSettingsMissing(RuntimeError):
    """Behind PgBouncer the server connections lack the core's time-outs: the core refuses to start."""


async def check_pooled_timeouts(
    pool: DbPool, statement_timeout: float, idle_in_transaction_timeout: float
) -> dict[str, int]:
    """Behind a transaction pooler, the time-outs must be the server connections' own.

    A client's startup `options` are not forwarded by PgBouncer (1.18 refuses the parameter unless told
    to ignore it), and a session-level SET would stay on whichever server connection ran it, for the next
    client. So the bounds `session_options` sets directly are set for every server connection instead —
    PgBouncer's `connect_query` on the database entry, or `ALTER ROLE … SET` — and checked here: both
    must be set and no longer than this core's own, or a write could outlive its Idempotency-Key claim.
    Returns the server's values in ms.
    """
    names = ("statement_timeout", "idle_in_transaction_session_timeout", "client_connection_check_interval")
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT name, setting::int AS ms FROM pg_settings WHERE name = ANY(%s)", (list(names),)
        )
        found = {row["name"]: row["ms"] for row in await cursor.fetchall()}
    wanted = {
        "statement_timeout": round(statement_timeout * 1000),
        "idle_in_transaction_session_timeout": round(idle_in_transaction_timeout * 1000),
    }
    for name, most in wanted.items():
        if not 0 < found.get(name, 0) <= most:
            raise PoolerSettingsMissing(
                f"behind DATABASE_POOLER the server's {name} is {found.get(name, 0)} ms; it must be set, "
                f"at most {most} ms, for every server connection: e.g. PgBouncer's connect_query = "
                f"'{pooled_connect_query(statement_timeout, idle_in_transaction_timeout)}'"
            )
    if not found.get("client_connection_check_interval"):
        logger.warning(
            "client_connection_check_interval is 0 behind the pooler: a statement of a vanished client "
            "runs to its end (set it in connect_query, PostgreSQL >= 14)"
        )
    return found


def pooled_connect_query(statement_timeout: float, idle_in_transaction_timeout: float) -> str:
    """The SETs a pooler must run on each new server connection (PgBouncer `connect_query`)."""
    return (
        f"SET statement_timeout = {round(statement_timeout * 1000)}; "
        f"SET idle_in_transaction_session_timeout = {round(idle_in_transaction_timeout * 1000)}; "
        f"SET client_connection_check_interval = {CLIENT_CHECK_MS}"
    )


async def open_pool(
    dsn: str,
    *,
    pooled: bool = False,
    min_size: int = 2,
    max_size: int = 20,
    timeout: float = 5.0,  # noqa: ASYNC109 - the pool's own wait bound, passed to psycopg_pool
    statement_timeout: float = STATEMENT_TIMEOUT_SECONDS,
    idle_in_transaction_timeout: float = IDLE_IN_TRANSACTION_TIMEOUT_SECONDS,
    keepalive_idle: int = KEEPALIVE_IDLE_SECONDS,
) -> DbPool:
    """Autocommit connections; writes that must be atomic open `conn.transaction()` explicitly.

    `check` validates a connection on checkout (unless it was in use a moment ago, _check_if_idle), so a
    PostgreSQL restart costs a failed request per connection at most, not a pool full of dead sockets.
    `timeout` bounds the wait for a connection (a request answers UNAVAILABLE after it while PostgreSQL
    is down) and each connection attempt, so an unreachable host cannot hold reconnection up for the
    operating system's TCP time-out. Every connection carries `session_options`.

    `pooled`: `dsn` is a PgBouncer in transaction mode, where consecutive transactions of one client
    connection may run on different server connections. Nothing may then live in a session: no named
    prepared statements (psycopg's `prepare_threshold=None`; PgBouncer 1.18 cannot track them, 1.21+
    only with `max_prepared_statements`), no startup `options` (the time-outs are the server
    connections' own, which the core checks with `check_pooled_timeouts`). Unnamed statements,
    pipelines and `SET LOCAL` inside a transaction are fine: each lives within one server round.
    """
    widen_placeholder_cache()
    session = (
        {"keepalives": 1, "prepare_threshold": None}
        if pooled
        else session_options(statement_timeout, idle_in_transaction_timeout)
    )
    keepalive = {
        "keepalives_idle": keepalive_idle,
        "keepalives_interval": KEEPALIVE_INTERVAL_SECONDS,
        "keepalives_count": KEEPALIVE_COUNT,
    }
    # The connections are what `row_factory` makes (`DbPool`'s dict rows).
    pool = _CorePool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        open=False,
        check=_check_if_idle,
        kwargs={
            "autocommit": True,
            "row_factory": dict_row,
            "connect_timeout": max(2, math.ceil(timeout)),
            **session,
            **keepalive,
        },
    )
    # At start PostgreSQL may still be booting: the default patience applies until the pool is full.
    await pool.open(wait=True, timeout=max(timeout * 6, 30.0))
    pool.reconnect_timeout = RECONNECT_GIVE_UP_SECONDS
    return pool
