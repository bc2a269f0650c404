"""PgEventPurge: deletes events past retention with their deliveries and attempts, a batch at a time."""

from __future__ import annotations

from datetime import datetime

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool

# Old events none of whose deliveries is pending (a pending delivery keeps its event until it settles),
# at most `limit`, locked with SKIP LOCKED so a second purger takes other rows instead of waiting. An
# event is old when it was written before the cutoff in real time (`inserted_at`, 0021), whatever its
# `created_at` says: a TEST event's may lie years ahead (DESIGN §10.5). A `created_at` before the cutoff
# counts too — a TEST time is never behind the real one, so that row's real age has passed as well
# (and tests that set the core's clock keep driving the purge). No ORDER BY: any old rows will do, so a
# batch stops at `limit` instead of sorting the whole backlog. Deleting an event deletes its
# deliveries and their attempts (ON DELETE CASCADE, 0003). A
# delivery inserted for the event while it is locked here (a resend) waits for this statement, then
# fails its foreign key: the event is gone.
PURGE_EVENTS = """
WITH old AS (
    SELECT e.id
    FROM events e
    WHERE (e.inserted_at <= %(cutoff)s OR e.created_at <= %(cutoff)s)
      AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
    LIMIT %(limit)s
    FOR UPDATE OF e SKIP LOCKED
)
DELETE FROM events e
 USING old
 WHERE e.id = old.id
"""


class PgEventPurge:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def purge_older_than(self, cutoff: datetime, limit: int) -> int:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(PURGE_EVENTS, {"cutoff": cutoff, "limit": limit})
            return cursor.rowcount
