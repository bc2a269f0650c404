"""PgTestEventLog: a merchant's TEST events as a gap-free stream, in (inserting transaction, seq) order.

`seq` alone is not a safe cursor: it is taken at insert time, and transactions commit in any order, so a
reader that passed seq 11 could later see seq 10 commit. Each event also records its transaction (`tx`,
migration 0020); reading only events whose transaction is older than every transaction still running
(`pg_snapshot_xmin`) and ordering by (tx, seq) makes the log final up to the last row read: every event
that can still commit has a larger tx. A long transaction elsewhere only delays the stream; it never
makes it skip. The index events_test_stream serves both queries.
"""

from __future__ import annotations

from typing import Any

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.developer_tools.application.ports import LoggedEvent
from core_server.developer_tools.domain.cli_session import StreamPosition

_POSITION = """
SELECT tx::text AS tx, seq FROM events
WHERE id = %(event_id)s AND merchant_id = %(merchant_id)s AND environment = 'test'
"""
# Ordered by the columns, `events.tx`: a bare `tx` would name the output column `tx::text`, and ordered
# as text, transaction 100 comes before 99, so a stream that read 100 first resumed after it and never
# sent 99 (and the index could not give the order: every row after the position was read and sorted).
# Every event type is read, the stream skips the unwanted ones (cli_stream.py): filtered here, the
# position moved only on a wanted event, and each poll read again every other event since the last one.
_AFTER = """
SELECT id, type, payload, tx::text AS tx, seq FROM events
WHERE merchant_id = %(merchant_id)s AND environment = 'test'
  AND (events.tx, events.seq) > (%(tx)s::xid8, %(seq)s::bigint)
  AND events.tx < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY events.tx, events.seq
LIMIT %(limit)s
"""


def position_from_row(row: dict[str, Any]) -> StreamPosition:
    return StreamPosition(int(row["tx"]), int(row["seq"]))


class PgTestEventLog:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def position_of(self, merchant_id: str, event_id: str) -> StreamPosition | None:
        async with self._pool.connection() as conn:
            params = {"event_id": event_id, "merchant_id": merchant_id}
            row = await (await conn.execute(_POSITION, params)).fetchone()
        return position_from_row(row) if row else None

    @wraps_psycopg_errors
    async def after(self, merchant_id: str, position: StreamPosition, limit: int) -> list[LoggedEvent]:
        params = {"merchant_id": merchant_id, "tx": str(position.tx), "seq": position.seq, "limit": limit}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_AFTER, params)).fetchall()
        return [LoggedEvent(row["id"], row["type"], row["payload"], position_from_row(row)) for row in rows]
