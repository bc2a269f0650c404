"""PgClockOffsets: each merchant's TEST clock offset, cached per process and dropped on every change.

Every TEST request resolves its merchant's clock, so the offset is cached: a miss costs one query, and
an advance (rare) NOTIFYs every core on CLOCK_CHANNEL in its own transaction; each core's listener then
drops its whole cache (and drops it again after reconnecting, since a NOTIFY may have been missed).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL

CLOCK_CHANNEL = "test_clocks"

_GET = "SELECT time_offset FROM test_clocks WHERE merchant_id = %(merchant_id)s"
# Forward only: the offset never shrinks, even if two advances race. The delivery channel is woken
# too: webhook retries of this merchant may have fallen due.
_SET = """
WITH stored AS (
  INSERT INTO test_clocks (merchant_id, time_offset) VALUES (%(merchant_id)s, %(offset)s)
  ON CONFLICT (merchant_id) DO UPDATE
     SET time_offset = GREATEST(test_clocks.time_offset, EXCLUDED.time_offset), updated_at = now()
  RETURNING 1
)
SELECT pg_notify('test_clocks', %(merchant_id)s), pg_notify('webhook_deliveries', '') FROM stored
"""
assert CLOCK_CHANNEL in _SET and DELIVERY_CHANNEL in _SET
# The first real moment after %(now)s at which some sandbox clock reaches 00:00 UTC (its next midnight
# less its offset); NULL without sandbox clocks.
_NEXT_TEST_MIDNIGHT = """
SELECT min(date_trunc('day', %(now)s::timestamptz + time_offset, 'UTC') + interval '24 hours' - time_offset)
       AS at
  FROM test_clocks"""


def merchant_time_sql(merchant_id: str, environment: str, real_now: str = "%(now)s") -> str:
    """SQL of `kernel/application/clocks.merchant_now` for a row: the merchant's time at `real_now` (a
    real moment) — the moment itself in LIVE, plus the merchant's sandbox clock offset in TEST.

    `merchant_id` and `environment` are the row's column expressions. Every storage that judges a row at
    its merchant's time writes this expression, so the sandbox offset is looked up one way everywhere
    (one indexed probe of `test_clocks` per row; the table holds one row per merchant that moved a clock).
    """
    return (
        f"({real_now}::timestamptz + coalesce((SELECT tc.time_offset FROM test_clocks tc"
        f" WHERE tc.merchant_id = {merchant_id} AND {environment} = 'test'), interval '0'))"
    )


def merchant_time_join(merchant_id: str, environment: str, alias: str, real_now: str = "%(now)s") -> str:
    """A FROM-clause item giving each row `alias.at`, its merchant's time (merchant_time_sql)."""
    return (
        f"CROSS JOIN LATERAL (SELECT {merchant_time_sql(merchant_id, environment, real_now)} AS at) {alias}"
    )


def sandbox_rows(table: str, alias: str) -> str:
    """A FROM-clause source: the TEST rows of `table` whose merchant moved its sandbox clock, beside that
    clock as `tc` (`tc.time_offset`). What is due at real time is due at any merchant's time (offsets are
    never negative), so a due query scans real time first and adds these rows for what only an advanced
    clock made due."""
    return (
        f"test_clocks tc JOIN {table} {alias}"
        f" ON {alias}.merchant_id = tc.merchant_id AND {alias}.environment = 'test'"
    )


def next_midnight_after(moment: datetime) -> datetime:
    """The first 00:00 UTC strictly after `moment`."""
    return datetime.combine(moment.astimezone(UTC).date(), time(0), tzinfo=UTC) + timedelta(days=1)


class PgClockOffsets:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool
        self._cache: dict[str, timedelta] = {}
        self._generation = 0  # bumped by forget(): a read that raced a change is not cached

    @wraps_psycopg_errors
    async def get(self, merchant_id: str) -> timedelta:
        cached = self._cache.get(merchant_id)
        if cached is not None:
            return cached
        generation = self._generation
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET, {"merchant_id": merchant_id})).fetchone()
        offset: timedelta = row["time_offset"] if row else timedelta(0)
        if generation == self._generation:
            self._cache[merchant_id] = offset
        return offset

    @wraps_psycopg_errors
    async def set(self, merchant_id: str, offset: timedelta) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_SET, {"merchant_id": merchant_id, "offset": offset})
        self.forget()

    @wraps_psycopg_errors
    async def next_midnight(self, real_now: datetime) -> datetime:
        """The next real moment at which real time or any merchant's sandbox clock passes 00:00 UTC: when
        daily work (notices, payouts) falls due somewhere (DESIGN §10.4)."""
        real = next_midnight_after(real_now)
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_NEXT_TEST_MIDNIGHT, {"now": real_now})).fetchone()
        sandbox: datetime | None = row["at"] if row else None
        return real if sandbox is None else min(real, sandbox)

    def forget(self) -> None:
        """Called on every NOTIFY of CLOCK_CHANNEL and after the listener reconnects."""
        self._generation += 1
        self._cache.clear()
