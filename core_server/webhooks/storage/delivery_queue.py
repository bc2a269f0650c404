"""PgDeliveryQueue: claims due deliveries with FOR UPDATE SKIP LOCKED, records attempts, lists them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.sealed import Sealed
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL
from core_server.webhooks.application.ports import ClaimedDelivery
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus
from core_server.webhooks.domain.webhook_schedule import EndpointHealth
from core_server.webhooks.storage.delivery_rows import (
    ATTEMPTS_SELECT,
    DELIVERY_SELECT,
    attempt_from_row,
    delivery_from_row,
)

_PENDING_COUNT = "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"
# `next_attempt_at` is in the merchant's time (a TEST endpoint's retries follow its merchant's sandbox
# clock, DESIGN §9), so it is compared with real time plus that clock's offset; the claim's lease is
# real time.
_DUE = """d.status = 'pending'
          AND d.next_attempt_at <= %(now)s + COALESCE(
                (SELECT tc.time_offset FROM test_clocks tc
                  WHERE tc.merchant_id = w.merchant_id AND w.environment = 'test'), interval '0')
          AND (d.locked_until IS NULL OR d.locked_until <= %(now)s)"""
# The oldest due deliveries, at most `per_endpoint` from any one endpoint and at most a merchant's room
# from any one merchant (its `per_merchant` cap less what this process already sends for it), so a
# backlog for one slow receiver, or for one merchant's many slow receivers, cannot take every slot.
# SKIP LOCKED sits inside the per-endpoint subquery: a worker claiming at the same moment takes the next
# rows instead of losing the race for the same ones. Candidates the caps leave out are locked only for
# this statement. Rows are re-checked under the lock, and the UPDATE commits the lease at once (the POST
# follows).
_CLAIM = (
    """
WITH room AS (
    SELECT r.merchant_id, r.room
    FROM unnest(%(busy_merchants)s::text[], %(merchant_room)s::int[]) AS r(merchant_id, room)
),
candidates AS (
    SELECT due.id, due.next_attempt_at, due.seq, w.merchant_id
    FROM webhook_endpoints w
    CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, d.seq
        FROM webhook_deliveries d
        WHERE d.endpoint_id = w.id AND """
    + _DUE
    + """
        ORDER BY d.next_attempt_at, d.seq
        LIMIT %(per_endpoint)s
        FOR UPDATE SKIP LOCKED
    ) due
    WHERE w.status <> 'disabled' AND NOT (w.id = ANY(%(skip)s::text[]))
),
ranked AS (
    SELECT c.id, c.next_attempt_at, c.seq,
           row_number() OVER (PARTITION BY c.merchant_id ORDER BY c.next_attempt_at, c.seq) AS merchant_rank,
           COALESCE(room.room, %(per_merchant)s) AS merchant_room
    FROM candidates c
    LEFT JOIN room ON room.merchant_id = c.merchant_id
),
locked AS (
    SELECT ranked.id
    FROM ranked
    WHERE ranked.merchant_rank <= ranked.merchant_room
    ORDER BY ranked.next_attempt_at, ranked.seq
    LIMIT %(limit)s
)
UPDATE webhook_deliveries d
   SET locked_until = %(lease_until)s, claim_token = %(token)s, requeued = false, updated_at = now()
  FROM locked, events e, webhook_endpoints w
 WHERE d.id = locked.id AND e.id = d.event_id AND w.id = d.endpoint_id
RETURNING d.id, d.endpoint_id, d.event_id, d.attempt_count, e.type AS event_type, e.payload,
          w.url, w.merchant_id, w.environment, w.secret_sealed, w.secret_key_id
"""
)
# An attempt's record in one statement (one round trip, atomic without a transaction block): the
# delivery row is locked first, the attempt is logged, and only a worker whose claim token still matches
# settles the row. If a resend came in during the attempt (`requeued`), the row is released due as the
# resend left it instead of being settled. The endpoint's health comes back for the caller to update
# only when it changes. No row when the delivery is gone (deleted with its endpoint).
_RECORD = """
WITH d AS (
    SELECT id, claim_token, requeued FROM webhook_deliveries WHERE id = %(id)s FOR UPDATE
),
attempt AS (
    INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, succeeded)
    SELECT d.id, %(attempted_at)s::timestamptz, %(status_code)s::int, %(latency_ms)s::int, %(error)s::text,
           %(succeeded)s::boolean
      FROM d
),
settled AS (
    UPDATE webhook_deliveries w
       SET status = CASE WHEN d.requeued THEN w.status ELSE %(status)s::text END,
           attempt_count = w.attempt_count + CASE WHEN d.requeued THEN 0 ELSE 1 END,
           next_attempt_at = CASE WHEN d.requeued THEN w.next_attempt_at
                                  ELSE %(next_attempt_at)s::timestamptz END,
           locked_until = NULL, claim_token = NULL, requeued = false, updated_at = now()
      FROM d
     WHERE w.id = d.id AND d.claim_token = %(token)s
)
SELECT e.status, e.consecutive_failures, d.requeued AND d.claim_token = %(token)s AS released
  FROM d JOIN webhook_endpoints e ON e.id = %(endpoint_id)s
"""
_LOCK_ENDPOINT_HEALTH = (
    "SELECT status, consecutive_failures FROM webhook_endpoints WHERE id = %s FOR NO KEY UPDATE"
)
_SET_ENDPOINT_HEALTH = """
UPDATE webhook_endpoints SET status = %(status)s, consecutive_failures = %(failures)s, updated_at = now()
WHERE id = %(id)s
"""
_PAGE = (
    DELIVERY_SELECT
    + """
WHERE d.endpoint_id = %(endpoint_id)s
  AND (%(cursor)s::text IS NULL OR d.seq < (
        SELECT seq FROM webhook_deliveries WHERE id = %(cursor)s AND endpoint_id = %(endpoint_id)s))
ORDER BY d.seq DESC
LIMIT %(limit)s
"""
)
_EXISTS = "SELECT 1 FROM webhook_deliveries WHERE id = %s AND endpoint_id = %s"
_NOTIFY = "SELECT pg_notify(%s, '')"


def _health(row: dict[str, Any]) -> EndpointHealth:
    return EndpointHealth(WebhookEndpointStatus(row["status"]), row["consecutive_failures"])


class PgDeliveryQueue:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        *,
        per_endpoint: int,
        skip_endpoints: Sequence[str],
        per_merchant: int,
        merchant_room: Mapping[str, int],
        token: str,
    ) -> list[ClaimedDelivery]:
        params = {
            "now": now,
            "lease_until": lease_until,
            "limit": limit,
            "per_endpoint": per_endpoint,
            "skip": list(skip_endpoints),
            "per_merchant": per_merchant,
            "busy_merchants": list(merchant_room),
            "merchant_room": [max(room, 0) for room in merchant_room.values()],
            "token": token,
        }
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_CLAIM, params)).fetchall()
        return [
            ClaimedDelivery(
                delivery_id=row["id"],
                claim_token=token,
                endpoint_id=row["endpoint_id"],
                merchant_id=row["merchant_id"],
                environment=Environment(row["environment"]),
                url=row["url"],
                sealed_secret=Sealed(row["secret_key_id"], bytes(row["secret_sealed"])),
                event_id=row["event_id"],
                event_type=row["event_type"],
                payload=row["payload"],
                attempt_count=row["attempt_count"],
            )
            for row in rows
        ]

    @wraps_psycopg_errors
    async def pending_count(self) -> int:
        """Deliveries not yet settled, due or waiting for a retry: the queue depth operators watch."""
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_PENDING_COUNT)).fetchone()
        return int(row["n"]) if row else 0

    @wraps_psycopg_errors
    async def announce(self) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_NOTIFY, (DELIVERY_CHANNEL,))

    @wraps_psycopg_errors
    async def record(
        self, claimed: ClaimedDelivery, attempt: DeliveryAttempt, retry_at: datetime | None
    ) -> bool:
        if attempt.succeeded:
            status = DeliveryStatus.SUCCEEDED
        else:
            status = DeliveryStatus.PENDING if retry_at is not None else DeliveryStatus.FAILED
        params = {
            "id": claimed.delivery_id,
            "token": claimed.claim_token,
            "endpoint_id": claimed.endpoint_id,
            "attempted_at": attempt.attempted_at,
            "status_code": attempt.status_code,
            "latency_ms": attempt.latency_ms,
            "error": attempt.error,
            "succeeded": attempt.succeeded,
            "status": status.value,
            "next_attempt_at": retry_at if status is DeliveryStatus.PENDING else None,
        }
        try:
            async with self._pool.connection() as conn:
                health = await (await conn.execute(_RECORD, params)).fetchone()
                if health is not None and _health(health).after_attempt(attempt.succeeded) != _health(health):
                    await self._update_health(conn, claimed.endpoint_id, attempt.succeeded)
        except psycopg.errors.ForeignKeyViolation:
            return False  # the endpoint was deleted while the attempt was in flight: nothing left to record
        return health is not None and bool(health["released"])

    @staticmethod
    async def _update_health(conn: psycopg.AsyncConnection[Any], endpoint_id: str, succeeded: bool) -> None:
        """The endpoint's failure count and status, by EndpointHealth's rule.

        Its own short transaction, taken only when the record saw a change coming: a healthy endpoint's
        successes write nothing, so concurrent deliveries to one endpoint do not queue on its row. (A
        crash between the two can miss one count; the attempt itself is recorded.)
        """
        async with conn.transaction():
            row = await (await conn.execute(_LOCK_ENDPOINT_HEALTH, (endpoint_id,))).fetchone()
            if row is None:
                return
            before = _health(row)
            after = before.after_attempt(succeeded)
            if after != before:
                await conn.execute(
                    _SET_ENDPOINT_HEALTH,
                    {"id": endpoint_id, "status": after.status.value, "failures": after.consecutive_failures},
                )

    @wraps_psycopg_errors
    async def list_for_endpoint(
        self, endpoint_id: str, limit: int, starting_after: str | None, tenant: str = ""
    ) -> Page[WebhookDelivery]:
        params = {"endpoint_id": endpoint_id, "cursor": starting_after, "limit": limit + 1}
        async with gate_for(self._pool).slot(tenant), self._pool.connection() as conn:
            page = Page.of(await (await conn.execute(_PAGE, params)).fetchall(), limit)
            attempts: dict[str, list[DeliveryAttempt]] = {row["id"]: [] for row in page.items}
            if page.items:
                for attempt_row in await (await conn.execute(ATTEMPTS_SELECT, (list(attempts),))).fetchall():
                    attempts[attempt_row["delivery_id"]].append(attempt_from_row(attempt_row))
        return Page([delivery_from_row(row, attempts[row["id"]]) for row in page.items], page.has_more)

    @wraps_psycopg_errors
    async def delivery_exists(self, endpoint_id: str, delivery_id: str) -> bool:
        async with self._pool.connection() as conn:
            return await (await conn.execute(_EXISTS, (delivery_id, endpoint_id))).fetchone() is not None
