"""PgPortalSessionPurge: deletes portal sessions that expired before the cutoff, one bounded batch per
statement. An expired session's row serves nobody (its link shows the expired page whether the row is
there or not); only its digest and its customer stay behind, so it is not kept."""

from __future__ import annotations

from datetime import datetime

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool

# The oldest expired sessions, at most `limit`, with SKIP LOCKED so two purgers never wait for each
# other. `expires_at` is on the merchant's clock (a TEST clock moved ahead only delays the purge).
PURGE_PORTAL_SESSIONS = """
WITH old AS (
    SELECT id FROM portal_sessions
    WHERE expires_at <= %(cutoff)s
    ORDER BY expires_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
DELETE FROM portal_sessions s USING old WHERE s.id = old.id
"""


class PgPortalSessionPurge:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def purge_older_than(self, cutoff: datetime, limit: int) -> int:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(PURGE_PORTAL_SESSIONS, {"cutoff": cutoff, "limit": limit})
            return cursor.rowcount
