"""PgEventRepository: the event log (written by the outbox) read back, and resends."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.list_pages import prepare_for
from core_server.kernel.storage.outbox import REQUEUE, requeue_params
from core_server.webhooks.application.ports import EventQuery
from core_server.webhooks.domain.events import StoredEvent
from core_server.webhooks.domain.webhook_delivery import WebhookDelivery
from core_server.webhooks.storage.delivery_rows import DELIVERY_SELECT, delivery_from_row

_PAGE = """
SELECT * FROM events
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND (%(type)s::text IS NULL OR type = %(type)s)
  AND (%(prefix)s::text IS NULL OR starts_with(type, %(prefix)s))
  AND (%(object_id)s::text IS NULL OR object_id = %(object_id)s)
  AND (%(cursor)s::text IS NULL OR seq < (
        SELECT seq FROM events
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY seq DESC
LIMIT %(limit)s
"""
_CURSOR_EXISTS = """
SELECT 1 FROM events WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
"""
_GET = "SELECT * FROM events WHERE id = %s"


def event_from_row(row: dict[str, Any]) -> StoredEvent:
    return StoredEvent(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        type=row["type"],
        created=row["created_at"],
        payload=row["payload"],
    )


def _params(query: EventQuery) -> dict[str, Any]:
    return {
        "merchant_id": query.merchant_id,
        "environment": query.environment.value,
        "type": query.type,
        "prefix": query.type_prefix,
        "cursor": query.starting_after,
        "object_id": query.object_id,
        "limit": query.limit + 1,
    }


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("type", "prefix", "object_id", "cursor")


class PgEventRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def list(self, query: EventQuery) -> Page[StoredEvent]:
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            params = _params(query)
            rows = await (
                await conn.execute(_PAGE, params, prepare=prepare_for(params, _OPTIONAL))
            ).fetchall()
        page = Page.of(rows, query.limit)
        return Page([event_from_row(row) for row in page.items], page.has_more)

    @wraps_psycopg_errors
    async def cursor_exists(self, query: EventQuery) -> bool:
        async with self._pool.connection() as conn:
            return await (await conn.execute(_CURSOR_EXISTS, _params(query))).fetchone() is not None

    @wraps_psycopg_errors
    async def get(self, event_id: str) -> StoredEvent | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET, (event_id,))).fetchone()
        return event_from_row(row) if row else None

    @wraps_psycopg_errors
    async def requeue(self, event: StoredEvent, now: datetime) -> builtins.list[WebhookDelivery]:
        params = requeue_params(event.id, event.type, event.merchant_id, event.environment, now)
        async with self._pool.connection() as conn:
            async with conn.transaction():
                queued = [row["id"] for row in await (await conn.execute(REQUEUE, params)).fetchall()]
            if not queued:
                return []
            rows = await (
                await conn.execute(DELIVERY_SELECT + " WHERE d.id = ANY(%s) ORDER BY d.seq DESC", (queued,))
            ).fetchall()
        return [delivery_from_row(row, []) for row in rows]
