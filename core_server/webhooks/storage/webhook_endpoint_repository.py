"""PgWebhookEndpointRepository: endpoints with their sealed secret, the per-merchant limit, changes."""

from __future__ import annotations

from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.domain.sealed import Sealed
from core_server.kernel.storage.idempotency_store import complete_in_transaction
from core_server.webhooks.application.ports import EndpointLimitReached
from core_server.webhooks.domain.webhook_endpoint import (
    EndpointChanges,
    WebhookEndpoint,
    WebhookEndpointStatus,
)

# Locking the merchant row serializes concurrent creates, so the limit cannot be overshot by a race.
_LOCK_MERCHANT = "SELECT 1 FROM merchants WHERE id = %s FOR UPDATE"
_COUNT = "SELECT count(*) AS n FROM webhook_endpoints WHERE merchant_id = %s"
_INSERT = """
INSERT INTO webhook_endpoints (id, merchant_id, environment, url, events, description, status,
                               secret_sealed, secret_key_id, created_at, updated_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(url)s, %(events)s, %(description)s, %(status)s,
        %(secret_sealed)s, %(secret_key_id)s, %(created_at)s, %(created_at)s)
"""
_COLUMNS = "id, merchant_id, environment, url, events, description, status, created_at"
_LIST = (
    "SELECT "
    + _COLUMNS
    + " FROM webhook_endpoints WHERE merchant_id = %s AND environment = %s ORDER BY seq DESC"
)
_GET = (
    "SELECT " + _COLUMNS + " FROM webhook_endpoints WHERE id = %s AND merchant_id = %s AND environment = %s"
)
# Field by field, so a `failing` set by the dispatcher meanwhile survives a PATCH without `status`.
_UPDATE = (
    """
UPDATE webhook_endpoints SET
    url = coalesce(%(url)s, url),
    events = coalesce(%(events)s, events),
    description = CASE WHEN %(clear_description)s THEN NULL ELSE coalesce(%(description)s, description) END,
    status = coalesce(%(status)s, status),
    consecutive_failures = CASE WHEN %(status)s = 'enabled' THEN 0 ELSE consecutive_failures END,
    consecutive_timeouts = CASE WHEN %(status)s = 'enabled' THEN 0 ELSE consecutive_timeouts END,
    paused_until = CASE WHEN %(status)s = 'enabled' THEN NULL ELSE paused_until END,
    updated_at = now()
WHERE id = %(id)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
RETURNING """
    + _COLUMNS
)
_DELETE = "DELETE FROM webhook_endpoints WHERE id = %s AND merchant_id = %s AND environment = %s"
_SECRET = "SELECT secret_sealed, secret_key_id FROM webhook_endpoints WHERE id = %s"


def endpoint_from_row(row: dict[str, Any]) -> WebhookEndpoint:
    return WebhookEndpoint(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        url=row["url"],
        events=tuple(row["events"]),
        description=row["description"],
        status=WebhookEndpointStatus(row["status"]),
        created=row["created_at"],
    )


class PgWebhookEndpointRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert_within_limit(
        self,
        endpoint: WebhookEndpoint,
        sealed_secret: Sealed,
        limit: int,
        completion: IdempotencyCompletion | None,
    ) -> None:
        params = {
            "id": endpoint.id,
            "merchant_id": endpoint.merchant_id,
            "environment": endpoint.environment.value,
            "url": endpoint.url,
            "events": list(endpoint.events),
            "description": endpoint.description,
            "status": endpoint.status.value,
            "secret_sealed": sealed_secret.ciphertext,
            "secret_key_id": sealed_secret.key_id,
            "created_at": endpoint.created,
        }
        try:
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute(_LOCK_MERCHANT, (endpoint.merchant_id,))
                row = await (await conn.execute(_COUNT, (endpoint.merchant_id,))).fetchone()
                if row is not None and row["n"] >= limit:
                    raise EndpointLimitReached(endpoint.merchant_id)
                await conn.execute(_INSERT, params)
                if completion is not None:
                    await complete_in_transaction(conn, completion)
        except psycopg.errors.UniqueViolation as exc:
            raise IdCollision(endpoint.id) from exc

    @wraps_psycopg_errors
    async def list(self, merchant_id: str, environment: Environment) -> list[WebhookEndpoint]:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_LIST, (merchant_id, environment.value))).fetchall()
        return [endpoint_from_row(row) for row in rows]

    @wraps_psycopg_errors
    async def get(
        self, merchant_id: str, environment: Environment, endpoint_id: str
    ) -> WebhookEndpoint | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET, (endpoint_id, merchant_id, environment.value))).fetchone()
        return endpoint_from_row(row) if row else None

    @wraps_psycopg_errors
    async def update(
        self, merchant_id: str, environment: Environment, endpoint_id: str, changes: EndpointChanges
    ) -> WebhookEndpoint | None:
        params = {
            "id": endpoint_id,
            "merchant_id": merchant_id,
            "environment": environment.value,
            "url": changes.url,
            "events": list(changes.events) if changes.events is not None else None,
            "description": changes.description,
            "clear_description": changes.clear_description,
            "status": changes.status.value if changes.status is not None else None,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_UPDATE, params)).fetchone()
        return endpoint_from_row(row) if row else None

    @wraps_psycopg_errors
    async def delete(self, merchant_id: str, environment: Environment, endpoint_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_DELETE, (endpoint_id, merchant_id, environment.value))
        return cursor.rowcount == 1

    @wraps_psycopg_errors
    async def sealed_secret(self, endpoint_id: str) -> Sealed | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SECRET, (endpoint_id,))).fetchone()
        return Sealed(row["secret_key_id"], bytes(row["secret_sealed"])) if row else None
