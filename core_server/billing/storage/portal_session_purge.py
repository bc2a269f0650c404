"""PgPortalSessionPurge: deletes portal sessions that expired before the cutoff, one bounded batch per
statement. An expired session's row serves nobody (its link shows the expired page whether the row is
there or not); only its digest and its customer stay behind, so it is not kept."""

from __future__ import annotations

from datetime import datetime

from core_server.billing.domain.portal_session import LIFETIME
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool

# Expired sessions, at most `limit`, with SKIP LOCKED so two purgers never wait for each other.
# `expires_at` is on the merchant's clock, which a TEST advance may move years ahead (DESIGN §10.5); a
# session written (`inserted_at`, real time, 0021) a LIFETIME before the cutoff has expired whatever its
# TEST time says, since TEST time runs at least as fast as real time.
PURGE_PORTAL_SESSIONS = """
WITH old AS (
    SELECT id FROM portal_sessions
    WHERE expires_at <= %(cutoff)s OR inserted_at <= %(inserted_cutoff)s
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
            params = {"cutoff": cutoff, "inserted_cutoff": cutoff - LIFETIME, "limit": limit}
            cursor = await conn.execute(PURGE_PORTAL_SESSIONS, params)
            return cursor.rowcount
