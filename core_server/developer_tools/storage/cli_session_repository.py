"""PgCliSessionRepository: sessions with the open-session limit, and the answers their CLI reported."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.developer_tools.application.ports import SessionLimitReached
from core_server.developer_tools.domain.cli_response import CliResponse, ReportedAnswer
from core_server.developer_tools.domain.cli_session import CliSession, StreamPosition
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.storage.idempotency_store import complete_in_transaction
from core_server.kernel.storage.list_pages import prepare_for

# Locking the merchant row serializes concurrent opens, so the limit cannot be overshot by a race.
_LOCK_MERCHANT = "SELECT 1 FROM merchants WHERE id = %(merchant_id)s FOR UPDATE"
# The device's open session is replaced by its new one: the limit counts devices, not restarts.
_CLOSE_DEVICE = """
UPDATE cli_sessions SET closed_at = %(now)s
WHERE merchant_id = %(merchant_id)s AND device_name = %(device_name)s AND closed_at IS NULL
"""
_COUNT_OPEN = """
SELECT count(*) AS n FROM cli_sessions
WHERE merchant_id = %(merchant_id)s AND closed_at IS NULL AND expires_at > %(now)s
"""
# The start is the oldest transaction still running: every event committed from here on is at or after
# (start_tx, 0), and every event before it was committed before the session opened.
_INSERT = """
INSERT INTO cli_sessions (id, merchant_id, device_name, start_tx, created_at, expires_at)
VALUES (%(id)s, %(merchant_id)s, %(device_name)s, pg_snapshot_xmin(pg_current_snapshot()), %(now)s,
        %(expires_at)s)
RETURNING id, merchant_id, device_name, start_tx::text AS start_tx, created_at, expires_at, closed_at
"""
_COLUMNS = "id, merchant_id, device_name, start_tx::text AS start_tx, created_at, expires_at, closed_at"
_GET = "SELECT " + _COLUMNS + " FROM cli_sessions WHERE id = %(id)s AND merchant_id = %(merchant_id)s"
_CLOSE = (
    "UPDATE cli_sessions SET closed_at = coalesce(closed_at, %(now)s)"
    " WHERE id = %(id)s AND merchant_id = %(merchant_id)s RETURNING " + _COLUMNS
)
_RECORD = """
INSERT INTO cli_session_responses (id, session_id, event_id, event_type, status_code, succeeded, error,
                                   latency_ms, created_at)
SELECT %(id)s, %(session_id)s, e.id, e.type, %(status_code)s, %(succeeded)s, %(error)s, %(latency_ms)s,
       %(now)s
  FROM events e
 WHERE e.id = %(event_id)s AND e.merchant_id = %(merchant_id)s AND e.environment = 'test'
RETURNING id, session_id, event_id, event_type, status_code, succeeded, error, latency_ms, created_at
"""
_PAGE = """
SELECT id, session_id, event_id, event_type, status_code, succeeded, error, latency_ms, created_at
FROM cli_session_responses
WHERE session_id = %(session_id)s
  AND (%(cursor)s::text IS NULL OR seq < (
        SELECT seq FROM cli_session_responses WHERE id = %(cursor)s AND session_id = %(session_id)s))
ORDER BY seq DESC
LIMIT %(limit)s
"""
_EXISTS = "SELECT 1 FROM cli_session_responses WHERE id = %(id)s AND session_id = %(session_id)s"


def session_from_row(row: dict[str, Any]) -> CliSession:
    return CliSession(
        id=row["id"],
        merchant_id=row["merchant_id"],
        device_name=row["device_name"],
        created=row["created_at"],
        expires_at=row["expires_at"],
        start=StreamPosition(int(row["start_tx"]), 0),
        closed_at=row["closed_at"],
    )


def response_from_row(row: dict[str, Any]) -> CliResponse:
    return CliResponse(
        id=row["id"],
        session_id=row["session_id"],
        event_id=row["event_id"],
        event_type=row["event_type"],
        status_code=row["status_code"],
        succeeded=row["succeeded"],
        error=row["error"],
        latency_ms=row["latency_ms"],
        created=row["created_at"],
    )


class PgCliSessionRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def open_within_limit(
        self,
        session_id: str,
        merchant_id: str,
        device_name: str,
        now: datetime,
        expires_at: datetime,
        limit: int,
        completion_for: Callable[[CliSession], IdempotencyCompletion] | None,
    ) -> CliSession:
        params = {
            "id": session_id,
            "merchant_id": merchant_id,
            "device_name": device_name,
            "now": now,
            "expires_at": expires_at,
        }
        try:
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute(_LOCK_MERCHANT, params)
                await conn.execute(_CLOSE_DEVICE, params)
                row = await (await conn.execute(_COUNT_OPEN, params)).fetchone()
                if row is not None and row["n"] >= limit:
                    raise SessionLimitReached(merchant_id)
                inserted = await (await conn.execute(_INSERT, params)).fetchone()
                assert inserted is not None
                session = session_from_row(inserted)
                if completion_for is not None:
                    await complete_in_transaction(conn, completion_for(session))
        except psycopg.errors.UniqueViolation as exc:
            raise IdCollision(session_id) from exc
        return session

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, session_id: str) -> CliSession | None:
        async with self._pool.connection() as conn:
            params = {"id": session_id, "merchant_id": merchant_id}
            row = await (await conn.execute(_GET, params)).fetchone()
        return session_from_row(row) if row else None

    @wraps_psycopg_errors
    async def close(self, merchant_id: str, session_id: str, now: datetime) -> CliSession | None:
        async with self._pool.connection() as conn:
            params = {"id": session_id, "merchant_id": merchant_id, "now": now}
            row = await (await conn.execute(_CLOSE, params)).fetchone()
        return session_from_row(row) if row else None

    @wraps_psycopg_errors
    async def record_response(
        self, response_id: str, session: CliSession, event_id: str, answer: ReportedAnswer, now: datetime
    ) -> CliResponse | None:
        params = {
            "id": response_id,
            "session_id": session.id,
            "merchant_id": session.merchant_id,
            "event_id": event_id,
            "status_code": answer.status_code,
            "succeeded": answer.succeeded,
            "error": answer.error,
            "latency_ms": answer.latency_ms,
            "now": now,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_RECORD, params)).fetchone()
        return response_from_row(row) if row else None

    @wraps_psycopg_errors
    async def list_responses(
        self, session_id: str, limit: int, starting_after: str | None
    ) -> Page[CliResponse]:
        params = {"session_id": session_id, "cursor": starting_after, "limit": limit + 1}
        async with self._pool.connection() as conn:
            rows = await (
                await conn.execute(_PAGE, params, prepare=prepare_for(params, ("cursor",)))
            ).fetchall()
        page = Page.of(rows, limit)
        return Page([response_from_row(row) for row in page.items], page.has_more)

    @wraps_psycopg_errors
    async def response_exists(self, session_id: str, response_id: str) -> bool:
        async with self._pool.connection() as conn:
            params = {"id": response_id, "session_id": session_id}
            return await (await conn.execute(_EXISTS, params)).fetchone() is not None
