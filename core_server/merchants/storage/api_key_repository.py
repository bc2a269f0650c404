"""PgApiKeyRepository: key pairs stored with only a digest of the secret."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.merchants.application.api_keys import KeyLimitReached, UnknownMerchant
from core_server.merchants.domain.api_key import ApiKey

# Locking the merchant row serializes concurrent creates, so the limit cannot be overshot by a race.
_LOCK_MERCHANT = "SELECT 1 FROM merchants WHERE id = %s FOR UPDATE"
_MERCHANT_EXISTS = "SELECT 1 FROM merchants WHERE id = %s"
_COUNT_ACTIVE = "SELECT count(*) AS n FROM api_keys WHERE merchant_id = %s AND revoked_at IS NULL"
_INSERT = """
INSERT INTO api_keys (id, merchant_id, name, environment, publishable_key, secret_key_hash,
                      secret_key_last4, created_at)
VALUES (%(id)s, %(merchant_id)s, %(name)s, %(environment)s, %(publishable_key)s, %(secret_key_hash)s,
        %(secret_key_last4)s, %(created_at)s)
"""
_LIST = "SELECT * FROM api_keys WHERE merchant_id = %s ORDER BY seq DESC"
_REVOKE = """
UPDATE api_keys SET revoked_at = coalesce(revoked_at, %(now)s)
WHERE id = %(id)s AND merchant_id = %(merchant_id)s
RETURNING *
"""
_BY_DIGEST = "SELECT * FROM api_keys WHERE secret_key_hash = %s"
_BY_PUBLISHABLE = "SELECT * FROM api_keys WHERE publishable_key = %s"


def _from_row(row: dict[str, Any]) -> ApiKey:
    return ApiKey(
        id=row["id"],
        merchant_id=row["merchant_id"],
        name=row["name"],
        environment=Environment(row["environment"]),
        publishable_key=row["publishable_key"],
        secret_key_last4=row["secret_key_last4"],
        created=row["created_at"],
        revoked_at=row["revoked_at"],
    )


class PgApiKeyRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert_within_limit(self, key: ApiKey, secret_digest: str, limit: int) -> None:
        params = {
            "id": key.id,
            "merchant_id": key.merchant_id,
            "name": key.name,
            "environment": key.environment.value,
            "publishable_key": key.publishable_key,
            "secret_key_hash": secret_digest,
            "secret_key_last4": key.secret_key_last4,
            "created_at": key.created,
        }
        try:
            async with self._pool.connection() as conn, conn.transaction():
                if await (await conn.execute(_LOCK_MERCHANT, (key.merchant_id,))).fetchone() is None:
                    raise UnknownMerchant(key.merchant_id)
                row = await (await conn.execute(_COUNT_ACTIVE, (key.merchant_id,))).fetchone()
                if row is not None and row["n"] >= limit:
                    raise KeyLimitReached(key.merchant_id)
                await conn.execute(_INSERT, params)
        except psycopg.errors.UniqueViolation as exc:
            raise IdCollision(key.id) from exc

    @wraps_psycopg_errors
    async def merchant_exists(self, merchant_id: str) -> bool:
        async with self._pool.connection() as conn:
            return await (await conn.execute(_MERCHANT_EXISTS, (merchant_id,))).fetchone() is not None

    @wraps_psycopg_errors
    async def list(self, merchant_id: str) -> list[ApiKey]:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_LIST, (merchant_id,))).fetchall()
        return [_from_row(row) for row in rows]

    @wraps_psycopg_errors
    async def revoke(self, merchant_id: str, key_id: str, now: datetime) -> ApiKey | None:
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(_REVOKE, {"id": key_id, "merchant_id": merchant_id, "now": now})
            ).fetchone()
        return _from_row(row) if row else None

    @wraps_psycopg_errors
    async def find_by_secret_digest(self, digest: str) -> ApiKey | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_BY_DIGEST, (digest,))).fetchone()
        return _from_row(row) if row else None

    @wraps_psycopg_errors
    async def find_by_publishable(self, key: str) -> ApiKey | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_BY_PUBLISHABLE, (key,))).fetchone()
        return _from_row(row) if row else None
