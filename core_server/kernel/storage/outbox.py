"""The transactional outbox: events and their deliveries written by the statement that changes the state.

Any context publishes events the same way: the statement that writes its aggregate names that write
`written_row` (a CTE that RETURNs the row when the write happened), adds OUTBOX_CTES, and selects
NOTIFY_COLUMN (or QUEUED_COLUMN). The events are logged only if `written_row` has a row; each is queued
for every endpoint of the merchant and environment that is not disabled and subscribes to its type (`*`
or the exact type). This SQL is the one place that decides which endpoints receive an event.

Waking the dispatchers. A statement that is its own transaction (autocommit: the fenced saves of charges
and subscriptions) selects QUEUED_COLUMN, and its caller hands the count to the process's
DeliveryAnnouncer once the statement returned, i.e. committed: one NOTIFY after the commit for whatever
this process queued meanwhile. A statement inside a larger transaction selects NOTIFY_COLUMN instead, and
PostgreSQL sends that NOTIFY at commit. Either way a rolled-back change wakes nobody. The announcer keeps
NOTIFY out of the creates' own commits: PostgreSQL (≤ 17) takes one database-wide lock in the commit of
every transaction that notifies and holds it through the commit's WAL flush, so creates that each
notified committed one after the other instead of sharing a flush (BENCHMARKS.md, "Speed, round 4").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection

from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.public_json import compact_json

logger = logging.getLogger(__name__)

DELIVERY_CHANNEL = "webhook_deliveries"
"""The NOTIFY channel the dispatchers LISTEN on; the payload is empty (the rows are the message)."""

# One JSON array parameter carries any number of events, so one statement text serves every write; it is
# one text to send instead of five arrays whose elements psycopg adapts one by one (5 % of the core's
# create went to that, BENCHMARKS.md "Speed, round 3").
# Endpoints are locked FOR KEY SHARE: a concurrent DELETE cannot commit between this read and the
# delivery insert (whose foreign key would then fail the whole state change); PATCHes are not blocked.
# Delivery ids have the API's shape (whd_ + 24 alphanumerics), drawn here from PostgreSQL's
# CSPRNG (gen_random_uuid, ~136 random bits here), as many as there are endpoints.
OUTBOX_CTES = """
outbox_event AS (
  INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
  SELECT e.id, %(event_merchant_id)s, %(event_environment)s, e.type, e.object_id, e.payload, e.created_at
    FROM written_row,
         json_to_recordset(%(events)s::json)
           AS e(id text, type text, object_id text, payload jsonb, created_at timestamptz)
  RETURNING id, type, created_at
),
outbox_deliveries AS (
  INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, created_at)
  SELECT 'whd_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
                                         'base64'), '+/=', 'pQz'), 24),
         ev.id, ep.id, 'pending', ev.created_at, ev.created_at
    FROM outbox_event ev
    JOIN LATERAL (
      SELECT id, events FROM webhook_endpoints
       WHERE merchant_id = %(event_merchant_id)s AND environment = %(event_environment)s
         AND status <> 'disabled'
       ORDER BY id
       FOR KEY SHARE
    ) ep ON ep.events && ARRAY['*', ev.type]
  ON CONFLICT (event_id, endpoint_id) DO NOTHING
  RETURNING 1
)"""

NOTIFY_COLUMN = (
    "CASE WHEN EXISTS (SELECT 1 FROM outbox_deliveries) THEN pg_notify('webhook_deliveries', '') END"
    " AS notified"
)
"""A select-list column of the main query: data-modifying CTEs always run, a NOTIFY must be asked for."""

QUEUED_COLUMN = "(SELECT count(*) FROM outbox_deliveries) AS queued"
"""For a statement that is its own transaction: the deliveries it queued, for DeliveryAnnouncer.queued
after it returned (committed); no NOTIFY in its commit."""

# Only a wake-up, lost in a crash like any NOTIFY (the dispatchers' poll is the safety net): its commit
# need not wait for the WAL flush, so the database-wide lock a notifying commit takes is held briefly.
_ANNOUNCE = "SELECT set_config('synchronous_commit', 'off', true), pg_notify('" + DELIVERY_CHANNEL + "', '')"


class DeliveryAnnouncer:
    """One NOTIFY at a time per process, after the commits that queued deliveries: commits that queued
    some while one is in flight get one more right after it, so none is missed and a burst of creates
    costs a few. Sent over `pool` (in the core the dispatcher's own connections, not queued behind
    requests)."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self._pending = False
        self._task: asyncio.Task[None] | None = None
        self.sent = 0  # NOTIFYs sent, for tests and the curious

    def queued(self, count: int | None) -> None:
        """Call once the statement that queued `count` deliveries has committed."""
        if not count:
            return
        self._pending = True
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._send(), name="delivery-announcer")

    async def _send(self) -> None:
        try:
            while self._pending:
                self._pending = False
                try:
                    async with self._pool.connection() as conn:
                        await conn.execute(_ANNOUNCE)
                    self.sent += 1
                except Exception as exc:  # noqa: BLE001 - a wake-up only: the poll delivers anyway
                    logger.warning("could not wake the webhook dispatchers: %s", type(exc).__name__)
        finally:
            self._task = None

    async def close(self) -> None:
        """Waits for the NOTIFY in flight (at shutdown, before its pool closes)."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


_ANNOUNCERS: dict[int, DeliveryAnnouncer] = {}


def announcer_for(pool: Any) -> DeliveryAnnouncer:
    """The announcer of repositories built without one (tests): one per pool, sending over it."""
    found = _ANNOUNCERS.get(id(pool))
    if found is None or found._pool is not pool:
        found = _ANNOUNCERS[id(pool)] = DeliveryAnnouncer(pool)
    return found


# Events with no state change of their own (a notice, a test's backlog): `written_row` always has a row.
_APPEND = (
    "WITH written_row AS (SELECT 1),"
    + OUTBOX_CTES
    + "\nSELECT (SELECT count(*) FROM outbox_deliveries) AS queued, "
    + NOTIFY_COLUMN
)

# A resend: a fresh first attempt due now for every endpoint receiving the event's type now. If an
# attempt is in flight its lease stays, so the pair is not sent twice at once, and `requeued` tells
# that attempt's record not to close the delivery.
REQUEUE = """
WITH receivers AS (
  SELECT id FROM webhook_endpoints
   WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s AND status <> 'disabled'
     AND events && ARRAY['*', %(event_type)s]
   ORDER BY id
   FOR KEY SHARE
),
queued AS (
  INSERT INTO webhook_deliveries AS d (id, event_id, endpoint_id, status, next_attempt_at, created_at)
  SELECT 'whd_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
                                         'base64'), '+/=', 'pQz'), 24),
         %(event_id)s, receivers.id, 'pending', %(due)s, %(due)s
    FROM receivers
  ON CONFLICT (event_id, endpoint_id) DO UPDATE
     SET status = 'pending', attempt_count = 0, next_attempt_at = EXCLUDED.next_attempt_at,
         requeued = d.claimed_until IS NOT NULL AND d.claimed_until > EXCLUDED.next_attempt_at,
         updated_at = now()
  RETURNING d.id
)
SELECT id, pg_notify('webhook_deliveries', '') FROM queued
"""


def event_params(merchant_id: str, environment: Environment, events: Sequence[OutboxEvent]) -> dict[str, Any]:
    """The parameters of OUTBOX_CTES (prefixed `event_`, beside the aggregate's own)."""
    rows = [
        {
            "id": e.id,
            "type": e.type,
            "object_id": e.object_id,
            "payload": e.payload,
            "created_at": e.created_at.isoformat(),  # with its offset: read back as the same instant
        }
        for e in events
    ]
    return {
        "event_merchant_id": merchant_id,
        "event_environment": environment.value,
        "events": compact_json(rows),
    }


async def append_events(
    conn: AsyncConnection[Any], merchant_id: str, environment: Environment, events: Sequence[OutboxEvent]
) -> int:
    """Logs events that change no aggregate, in the caller's transaction; returns the deliveries queued."""
    if not events:
        return 0
    row = await (await conn.execute(_APPEND, event_params(merchant_id, environment, events))).fetchone()
    return int(row["queued"]) if row else 0


def requeue_params(
    event_id: str, event_type: str, merchant_id: str, environment: Environment, due: datetime
) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "event_type": event_type,
        "merchant_id": merchant_id,
        "environment": environment.value,
        "due": due,
    }
