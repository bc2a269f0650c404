"""Writes domain events as event rows inside the caller's transaction (the transactional outbox).

With each event it writes one delivery row per subscribed, not disabled webhook endpoint of the
same merchant and environment, and a NOTIFY that wakes the dispatchers. All of it commits or rolls
back with the state change that caused the event: a rolled-back change emits nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from core_server.domain.charge import Charge
from core_server.domain.charge_view import charge_view
from core_server.domain.environment import Environment
from core_server.domain.event_types import subscribes
from core_server.domain.ids import new_event_id, new_webhook_delivery_id

DELIVERY_CHANNEL = "webhook_deliveries"
"""The NOTIFY channel the dispatchers LISTEN on; the payload is empty (the rows are the message)."""

_INSERT_EVENT = """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(type)s, %(object_id)s, %(payload)s, %(created_at)s)
"""
# KEY SHARE keeps a concurrent endpoint DELETE from committing between this read and the delivery
# insert (whose foreign key would then fail the whole state change); it does not block PATCHes.
_RECEIVING_ENDPOINTS = """
SELECT id, events FROM webhook_endpoints
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s AND status <> 'disabled'
ORDER BY id
FOR KEY SHARE
"""
_INSERT_DELIVERY = """
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, created_at)
VALUES (%(id)s, %(event_id)s, %(endpoint_id)s, 'pending', %(due)s, %(due)s)
ON CONFLICT (event_id, endpoint_id) DO NOTHING
"""
# A resend: a fresh first attempt due now. If an attempt is in flight its lease stays, so the pair is
# not sent twice at once, and `requeued` tells that attempt's record not to close the delivery.
_REQUEUE_DELIVERY = """
INSERT INTO webhook_deliveries AS d (id, event_id, endpoint_id, status, next_attempt_at, created_at)
VALUES (%(id)s, %(event_id)s, %(endpoint_id)s, 'pending', %(due)s, %(due)s)
ON CONFLICT (event_id, endpoint_id) DO UPDATE
   SET status = 'pending', attempt_count = 0, next_attempt_at = EXCLUDED.next_attempt_at,
       requeued = d.locked_until IS NOT NULL AND d.locked_until > EXCLUDED.next_attempt_at,
       updated_at = now()
RETURNING d.id
"""
_NOTIFY = "SELECT pg_notify(%s, '')"


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    """An event about to be logged; `payload` is the spec's Event object."""

    id: str
    type: str
    object_id: str
    payload: dict[str, Any]
    created_at: datetime


def charge_outbox_events(charge: Charge, checkout_base_url: str) -> list[OutboxEvent]:
    """One event per pending charge event; `data.object` is the charge as it stands after the transition."""
    events = []
    for event in charge.pending_events:
        event_id = new_event_id()
        payload = {
            "id": event_id,
            "object": "event",
            "type": event.type.value,
            "created": int(event.occurred_at.timestamp()),
            "livemode": charge.livemode,
            "data": {"object": charge_view(charge, checkout_base_url)},
        }
        events.append(OutboxEvent(event_id, event.type.value, charge.id, payload, event.occurred_at))
    return events


async def write_events(
    conn: AsyncConnection[Any], merchant_id: str, environment: Environment, events: Sequence[OutboxEvent]
) -> int:
    """Logs the events and queues their deliveries in the caller's transaction; returns deliveries queued."""
    if not events:
        return 0
    rows = [
        {
            "id": event.id,
            "merchant_id": merchant_id,
            "environment": environment.value,
            "type": event.type,
            "object_id": event.object_id,
            "payload": Jsonb(event.payload),
            "created_at": event.created_at,
        }
        for event in events
    ]
    async with conn.cursor() as cur:
        await cur.executemany(_INSERT_EVENT, rows)
    queued = await queue_deliveries(
        conn, merchant_id, environment, [(e.id, e.type) for e in events], due=events[0].created_at
    )
    return len(queued)


async def queue_deliveries(
    conn: AsyncConnection[Any],
    merchant_id: str,
    environment: Environment,
    events: Sequence[tuple[str, str]],
    *,
    due: datetime,
    requeue: bool = False,
) -> list[tuple[str, str]]:
    """Deliveries of `(event id, type)` to each endpoint receiving the type; returns (delivery, endpoint) ids.

    Must run inside the caller's transaction; the NOTIFY is sent only if that transaction commits.
    """
    params = {"merchant_id": merchant_id, "environment": environment.value}
    endpoints = await (await conn.execute(_RECEIVING_ENDPOINTS, params)).fetchall()
    pairs = [
        {"id": new_webhook_delivery_id(), "event_id": event_id, "endpoint_id": endpoint["id"], "due": due}
        for event_id, event_type in events
        for endpoint in endpoints
        if subscribes(endpoint["events"], event_type)
    ]
    if not pairs:
        return []
    queued: list[tuple[str, str]] = []
    if requeue:
        for pair in pairs:
            row = await (await conn.execute(_REQUEUE_DELIVERY, pair)).fetchone()
            queued.append((row["id"] if row else pair["id"], pair["endpoint_id"]))
    else:
        async with conn.cursor() as cur:
            await cur.executemany(_INSERT_DELIVERY, pairs)
        queued = [(pair["id"], pair["endpoint_id"]) for pair in pairs]
    await conn.execute(_NOTIFY, (DELIVERY_CHANNEL,))
    return queued


async def write_charge_events(conn: AsyncConnection[Any], charge: Charge, checkout_base_url: str) -> None:
    events = charge_outbox_events(charge, checkout_base_url)
    await write_events(conn, charge.merchant_id, charge.environment, events)
