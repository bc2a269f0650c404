"""PgPortalSessionRepository: portal sessions, found by the digest of their token."""

from __future__ import annotations

from typing import Any

import psycopg

from core_server.billing.domain.portal_session import PortalSession
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision

_INSERT = """
INSERT INTO portal_sessions (id, merchant_id, environment, customer_id, return_url, token_digest,
                             created_at, expires_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(customer_id)s, %(return_url)s, %(token_digest)s,
        %(created_at)s, %(expires_at)s)
"""
_BY_DIGEST = """
SELECT id, merchant_id, environment, customer_id, return_url, token_digest, created_at, expires_at
  FROM portal_sessions WHERE token_digest = %(token_digest)s
"""


def portal_session_from_row(row: dict[str, Any]) -> PortalSession:
    return PortalSession(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        customer_id=row["customer_id"],
        return_url=row["return_url"],
        token_digest=row["token_digest"],
        created=row["created_at"],
        expires_at=row["expires_at"],
    )


class PgPortalSessionRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(self, session: PortalSession) -> None:
        params = {
            "id": session.id,
            "merchant_id": session.merchant_id,
            "environment": session.environment.value,
            "customer_id": session.customer_id,
            "return_url": session.return_url,
            "token_digest": session.token_digest,
            "created_at": session.created,
            "expires_at": session.expires_at,
        }
        try:
            async with self._pool.connection() as conn:
                await conn.execute(_INSERT, params)
        except psycopg.errors.UniqueViolation as exc:
            raise IdCollision(session.id) from exc

    @wraps_psycopg_errors
    async def find_by_digest(self, token_digest: str) -> PortalSession | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_BY_DIGEST, {"token_digest": token_digest})
            row = await cursor.fetchone()
        return portal_session_from_row(row) if row else None
