"""Writes domain events as event rows inside the caller's transaction (the transactional outbox)."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from core_server.domain.charge import Charge
from core_server.domain.charge_view import charge_view
from core_server.domain.ids import new_event_id

_INSERT_EVENT = """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(type)s, %(object_id)s, %(payload)s, %(created_at)s)
"""


def event_rows(charge: Charge, checkout_base_url: str) -> list[dict[str, Any]]:
    """One row per pending event; `data.object` is the charge as it stands after the transition."""
    rows = []
    for event in charge.pending_events:
        event_id = new_event_id()
        created = int(event.occurred_at.timestamp())
        payload = {
            "id": event_id,
            "object": "event",
            "type": event.type.value,
            "created": created,
            "livemode": charge.livemode,
            "data": {"object": charge_view(charge, checkout_base_url)},
        }
        rows.append(
            {
                "id": event_id,
                "merchant_id": charge.merchant_id,
                "environment": charge.environment.value,
                "type": event.type.value,
                "object_id": charge.id,
                "payload": Jsonb(payload),
                "created_at": event.occurred_at,
            }
        )
    return rows


async def write_charge_events(conn: AsyncConnection[Any], charge: Charge, checkout_base_url: str) -> None:
    rows = event_rows(charge, checkout_base_url)
    if rows:
        async with conn.cursor() as cur:
            await cur.executemany(_INSERT_EVENT, rows)
