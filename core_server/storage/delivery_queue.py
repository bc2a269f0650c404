"""PgDeliveryQueue: claims due deliveries with FOR UPDATE SKIP LOCKED, records attempts, lists them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from core_server.application.webhook_ports import ClaimedDelivery, DeliveryPage
from core_server.domain.environment import Environment
from core_server.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus
from core_server.domain.webhook_endpoint import WebhookEndpointStatus
from core_server.domain.webhook_schedule import EndpointHealth
from core_server.storage.delivery_rows import (
    ATTEMPTS_SELECT,
    DELIVERY_SELECT,
    attempt_from_row,
    delivery_from_row,
)
from core_server.storage.errors import wraps_psycopg_errors
from core_server.storage.outbox import DELIVERY_CHANNEL

_PENDING_COUNT = "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"
_DUE = """d.status = 'pending' AND d.next_attempt_at <= %(now)s
          AND (d.locked_until IS NULL OR d.locked_until <= %(now)s)"""
# The oldest due deliveries, at most `per_endpoint` from any one endpoint, so a backlog for one slow
# receiver cannot take every slot. SKIP LOCKED sits inside the per-endpoint subquery: a worker
# claiming at the same moment takes the next rows instead of losing the race for the same ones.
# Rows are re-checked under the lock, and the UPDATE commits the lease at once (the POST follows).
_CLAIM = f"""
WITH locked AS (
    SELECT due.id
    FROM webhook_endpoints w
    CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, d.seq
        FROM webhook_deliveries d
        WHERE d.endpoint_id = w.id AND {_DUE}
        ORDER BY d.next_attempt_at, d.seq
        LIMIT %(per_endpoint)s
        FOR UPDATE SKIP LOCKED
    ) due
    WHERE w.status <> 'disabled' AND NOT (w.id = ANY(%(skip)s::text[]))
    ORDER BY due.next_attempt_at, due.seq
    LIMIT %(limit)s
)
UPDATE webhook_deliveries d
   SET locked_until = %(lease_until)s, claim_token = %(token)s, requeued = false, updated_at = now()
  FROM locked, events e, webhook_endpoints w
 WHERE d.id = locked.id AND e.id = d.event_id AND w.id = d.endpoint_id
RETURNING d.id, d.endpoint_id, d.event_id, d.attempt_count, e.type AS event_type, e.payload,
          w.url, w.environment, w.secret_sealed
"""
_LOCK_DELIVERY = "SELECT claim_token, requeued FROM webhook_deliveries WHERE id = %s FOR UPDATE"
_ENDPOINT_HEALTH = "SELECT status, consecutive_failures FROM webhook_endpoints WHERE id = %s"
_LOCK_ENDPOINT_HEALTH = _ENDPOINT_HEALTH + " FOR NO KEY UPDATE"
_INSERT_ATTEMPT = """
INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, succeeded)
VALUES (%(delivery_id)s, %(attempted_at)s, %(status_code)s, %(latency_ms)s, %(error)s, %(succeeded)s)
"""
_FINISH = """
UPDATE webhook_deliveries
   SET status = %(status)s, attempt_count = attempt_count + 1, next_attempt_at = %(next_attempt_at)s,
       locked_until = NULL, claim_token = NULL, updated_at = now()
 WHERE id = %(id)s
"""
_RELEASE_REQUEUED = """
UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL, requeued = false, updated_at = now()
WHERE id = %s
"""
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
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def claim(
        self, now: datetime, lease_until: datetime, limit: int, *, per_endpoint: int,
        skip_endpoints: Sequence[str], token: str,
    ) -> list[ClaimedDelivery]:
        params = {
            "now": now,
            "lease_until": lease_until,
            "limit": limit,
            "per_endpoint": per_endpoint,
            "skip": list(skip_endpoints),
            "token": token,
        }
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_CLAIM, params)).fetchall()
        return [
            ClaimedDelivery(
                delivery_id=row["id"],
                claim_token=token,
                endpoint_id=row["endpoint_id"],
                environment=Environment(row["environment"]),
                url=row["url"],
                sealed_secret=bytes(row["secret_sealed"]),
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
    ) -> None:
        try:
            async with self._pool.connection() as conn:
                async with conn.transaction():
                    recorded = await self._record_attempt(conn, claimed, attempt, retry_at)
                if recorded:
                    await self._update_health(conn, claimed.endpoint_id, attempt.succeeded)
        except psycopg.errors.ForeignKeyViolation:
            pass  # the endpoint was deleted while the attempt was in flight: nothing left to record

    @staticmethod
    async def _record_attempt(
        conn: psycopg.AsyncConnection[Any], claimed: ClaimedDelivery, attempt: DeliveryAttempt,
        retry_at: datetime | None,
    ) -> bool:
        delivery = await (await conn.execute(_LOCK_DELIVERY, (claimed.delivery_id,))).fetchone()
        if delivery is None:
            return False  # deleted with its endpoint
        await conn.execute(
            _INSERT_ATTEMPT,
            {
                "delivery_id": claimed.delivery_id,
                "attempted_at": attempt.attempted_at,
                "status_code": attempt.status_code,
                "latency_ms": attempt.latency_ms,
                "error": attempt.error,
                "succeeded": attempt.succeeded,
            },
        )
        if delivery["claim_token"] != claimed.claim_token:
            return True  # our lease lapsed and another worker owns the row: only the attempt is ours
        if delivery["requeued"]:
            # A resend came in during the attempt: the delivery starts over, due now.
            await conn.execute(_RELEASE_REQUEUED, (claimed.delivery_id,))
            return True
        if attempt.succeeded:
            status = DeliveryStatus.SUCCEEDED
        else:
            status = DeliveryStatus.PENDING if retry_at is not None else DeliveryStatus.FAILED
        await conn.execute(
            _FINISH,
            {
                "id": claimed.delivery_id,
                "status": status.value,
                "next_attempt_at": retry_at if status is DeliveryStatus.PENDING else None,
            },
        )
        return True

    @staticmethod
    async def _update_health(conn: psycopg.AsyncConnection[Any], endpoint_id: str, succeeded: bool) -> None:
        """The endpoint's failure count and status, by EndpointHealth's rule.

        Its own short transaction, taken only when something changes: a healthy endpoint's successes
        write nothing, so concurrent deliveries to one endpoint do not queue on its row. (A crash
        between the two transactions can miss one count; the attempt itself is recorded.)
        """
        row = await (await conn.execute(_ENDPOINT_HEALTH, (endpoint_id,))).fetchone()
        if row is None or _health(row).after_attempt(succeeded) == _health(row):
            return
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
        self, endpoint_id: str, limit: int, starting_after: str | None
    ) -> DeliveryPage:
        params = {"endpoint_id": endpoint_id, "cursor": starting_after, "limit": limit + 1}
        async with self._pool.connection() as conn:
            rows = (await (await conn.execute(_PAGE, params)).fetchall())
            page = rows[:limit]
            attempts: dict[str, list[DeliveryAttempt]] = {row["id"]: [] for row in page}
            if page:
                for attempt_row in await (await conn.execute(ATTEMPTS_SELECT, (list(attempts),))).fetchall():
                    attempts[attempt_row["delivery_id"]].append(attempt_from_row(attempt_row))
        deliveries = [delivery_from_row(row, attempts[row["id"]]) for row in page]
        return DeliveryPage(deliveries=deliveries, has_more=len(rows) > limit)

    @wraps_psycopg_errors
    async def delivery_exists(self, endpoint_id: str, delivery_id: str) -> bool:
        async with self._pool.connection() as conn:
            return await (await conn.execute(_EXISTS, (delivery_id, endpoint_id))).fetchone() is not None
