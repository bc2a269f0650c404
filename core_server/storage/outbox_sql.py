"""The transactional outbox written by SQL alone, as CTEs of the statement that changes the state.

outbox.py reads the receiving endpoints and then inserts their deliveries, a round trip each; a charge
create instead writes its event, the deliveries and the wake-up NOTIFY inside its one INSERT statement
(one round trip, one commit). The rules are outbox.py's: one delivery per endpoint of the merchant and
environment that is not disabled and subscribes to the type (`*` or the exact type), endpoints locked
FOR KEY SHARE so a concurrent DELETE cannot fail the write, a NOTIFY only when a delivery was queued
(PostgreSQL sends it at commit, so a rolled-back write wakes nobody).
"""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from core_server.storage.outbox import DELIVERY_CHANNEL, OutboxEvent

# Delivery ids match new_webhook_delivery_id()'s shape (whd_ + 24 alphanumerics) from PostgreSQL's
# CSPRNG (gen_random_uuid, ~136 random bits here): the server makes as many as there are endpoints.
_DELIVERY_ID = (
    "'whd_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),"
    " 'base64'), '+/=', 'pQz'), 24)"
)


def event_ctes(source: str) -> str:
    """CTEs `outbox_event` and `outbox_deliveries`: the events (parameter arrays, any number, so one
    statement text serves every write), written only if CTE `source` (the state change's RETURNING)
    has a row, and their deliveries."""
    return f"""
outbox_event AS (
  INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
  SELECT e.id, %(event_merchant_id)s, %(event_environment)s, e.type, %(event_object_id)s, e.payload, e.created_at
    FROM {source},
         unnest(%(event_ids)s::text[], %(event_types)s::text[], %(event_payloads)s::jsonb[],
                %(event_times)s::timestamptz[]) AS e(id, type, payload, created_at)
  RETURNING id, type, created_at
),
outbox_deliveries AS (
  INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, created_at)
  SELECT {_DELIVERY_ID}, ev.id, ep.id, 'pending', ev.created_at, ev.created_at
    FROM outbox_event ev
    JOIN LATERAL (
      SELECT id, events FROM webhook_endpoints
       WHERE merchant_id = %(event_merchant_id)s AND environment = %(event_environment)s AND status <> 'disabled'
       ORDER BY id
       FOR KEY SHARE
    ) ep ON ep.events && ARRAY['*', ev.type]
  ON CONFLICT (event_id, endpoint_id) DO NOTHING
  RETURNING 1
)"""


NOTIFY_COLUMN = (
    f"CASE WHEN EXISTS (SELECT 1 FROM outbox_deliveries) THEN pg_notify('{DELIVERY_CHANNEL}', '') END"
)
"""A select-list column of the main query: data-modifying CTEs always run, a NOTIFY must be asked for."""


def event_params(merchant_id: str, environment: str, object_id: str, events: list[OutboxEvent]) -> dict[str, Any]:
    return {
        "event_merchant_id": merchant_id,
        "event_environment": environment,
        "event_object_id": object_id,
        "event_ids": [e.id for e in events],
        "event_types": [e.type for e in events],
        "event_payloads": [Jsonb(e.payload) for e in events],
        "event_times": [e.created_at for e in events],
    }
