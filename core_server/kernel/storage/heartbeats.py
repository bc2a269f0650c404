"""PgHeartbeats: each core's liveness row in core_heartbeats, which its Idempotency-Key claims follow.

A claim names its core (PgIdempotencyStore's `process`); a retry that meets an in-progress claim whose
core has not beaten within CORE_HEARTBEAT_LAPSE_SECONDS takes it over at once, instead of answering 409
until the claim's lease lapses (docs/running.md).
"""

from __future__ import annotations

from datetime import datetime

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool

# Never moves backwards: a delayed beat must not make a live core look older than it is.
_BEAT = """
INSERT INTO core_heartbeats AS h (process, last_seen) VALUES (%(process)s, %(now)s)
ON CONFLICT (process) DO UPDATE SET last_seen = GREATEST(h.last_seen, EXCLUDED.last_seen)
"""
# Whether `process` beat since `alive_since`; a core without a row (never beat, or shut down) is not alive.
_ALIVE = "SELECT 1 FROM core_heartbeats WHERE process = %(process)s AND last_seen > %(alive_since)s"
# At a clean shutdown, after the actors drained: whatever claim is left is abandoned at once.
_FORGET = "DELETE FROM core_heartbeats WHERE process = %(process)s"
# Rows of cores long gone (a heartbeat older than a day), so the table stays one row per live core.
_PURGE = "DELETE FROM core_heartbeats WHERE last_seen < %(before)s"


class PgHeartbeats:
    def __init__(self, pool: DbPool, process: str) -> None:
        self._pool = pool
        self.process = process

    @wraps_psycopg_errors
    async def beat(self, now: datetime) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_BEAT, {"process": self.process, "now": now})

    @wraps_psycopg_errors
    async def beat_since(self, process: str, alive_since: datetime) -> bool:
        """Whether core `process` beat after `alive_since` (the rule idempotency claims follow too)."""
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(_ALIVE, {"process": process, "alive_since": alive_since})
            ).fetchone()
        return row is not None

    @wraps_psycopg_errors
    async def forget(self) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_FORGET, {"process": self.process})

    @wraps_psycopg_errors
    async def purge_before(self, before: datetime) -> int:
        async with self._pool.connection() as conn:
            return (await conn.execute(_PURGE, {"before": before})).rowcount
