"""PgIdempotencyPurge: deletes idempotency keys past their lifetime, one bounded batch per statement."""

from __future__ import annotations

from datetime import datetime

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool

# The oldest expired keys, at most `limit`, locked with SKIP LOCKED so a second purger (or a claim
# taking an expired key over) is never waited for: each takes rows the other does not hold. An expired
# key's row serves nobody: a claim on it starts afresh anyway (idempotency_store's `expired_before`).
PURGE_IDEMPOTENCY_KEYS = """
WITH old AS (
    SELECT scope, key
    FROM idempotency_keys
    WHERE created_at <= %(cutoff)s
    ORDER BY created_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
DELETE FROM idempotency_keys k
 USING old
 WHERE k.scope = old.scope AND k.key = old.key
"""


class PgIdempotencyPurge:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def purge_older_than(self, cutoff: datetime, limit: int) -> int:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(PURGE_IDEMPOTENCY_KEYS, {"cutoff": cutoff, "limit": limit})
            return cursor.rowcount
