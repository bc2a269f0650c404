"""PgDeliveryQueue: claims due deliveries with FOR UPDATE SKIP LOCKED, records attempts, lists them.

A delivery is a job of its own row: its claim is the kernel's (kernel/storage/job_claims.py) — the row's
`claimed_until`, `claimed_by` and `claim_token`, free once lapsed or once the claiming core's heartbeat
lapsed — written on the row the claim and the record touch anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.sealed import Sealed
from core_server.kernel.storage.clock_offsets import merchant_time_sql
from core_server.kernel.storage.job_claims import RELEASED, STAMP, PgJobClaims, claim_free
from core_server.kernel.storage.list_pages import prepare_for
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL
from core_server.webhooks.application.ports import AttemptRecord, ClaimedDelivery
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus
from core_server.webhooks.domain.webhook_pause import PAUSE_AFTER_TIMEOUTS, EndpointPause
from core_server.webhooks.domain.webhook_schedule import EndpointHealth
from core_server.webhooks.storage.delivery_rows import (
    ATTEMPTS_SELECT,
    DELIVERY_SELECT,
    attempt_from_row,
    delivery_from_row,
)

_PENDING_COUNT = "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"
# `next_attempt_at` is in the merchant's time (a TEST endpoint's retries follow its merchant's sandbox
# clock, DESIGN §9), so it is compared with real time plus that clock's offset; the claim is real time.
_DUE = (
    """d.status = 'pending'
          AND d.next_attempt_at <= """
    + merchant_time_sql("w.merchant_id", "w.environment")
    + """
          AND """
    + claim_free("d")
)
# Due deliveries shared round-robin across merchants (DESIGN §10.9): each candidate's `load` is how many
# slots its merchant would hold with it (attempts in flight here plus its rank among the merchant's
# candidates), and the claim takes the lowest loads first, oldest first among equal loads; so every
# merchant with something due gets its first slot before any gets its second. No merchant goes beyond
# `per_merchant`, and a merchant's second and further slots never take the last `reserve` free slots:
# a merchant with nothing in flight finds one free at once, however many merchants' receivers hang.
# At most `per_endpoint` come from one endpoint, less its attempts in flight at this core, plus up to `ahead`
# more, claimed ahead of its quota (webhook_dispatcher.py): those rank after every other candidate, for the
# merchant's load and for the batch, so they only ever take places nothing within a quota wanted; a paused
# endpoint gives none, and one on probation after a pause (webhook_pause.py) gives one, only while none of
# its deliveries is leased (its probe is out).
# That check reads, locking no endpoint row: a claim that locked endpoints after deliveries could deadlock
# with an endpoint's deletion, which locks them the other way round. (Two cores claiming at the same
# instant may each send one probe.)
# The endpoints looked at are only those with a pending row (`pending_endpoints`: a skip scan of the
# partial due index, one probe per such endpoint), never every registered one; and the claimed rows are
# updated through their primary key (`= ANY(ARRAY(...))`). Without both, a claim cost in proportion to the
# platform's endpoints and its whole delivery history: with 20,000 endpoints and 200,000 past deliveries,
# 230–330 ms a claim (a probe of every endpoint, and a hash of every delivery row built to update 32).
# SKIP LOCKED sits inside the per-endpoint subquery: a worker claiming at the same moment takes the next
# rows instead of losing the race for the same ones. Candidates the caps leave out are locked only for
# this statement. Rows are re-checked under the lock, and the UPDATE commits the lease at once (the POST
# follows).
_CLAIM = (
    """
WITH RECURSIVE busy AS (
    SELECT b.merchant_id, b.n
    FROM unnest(%(busy_merchants)s::text[], %(merchant_busy)s::int[]) AS b(merchant_id, n)
),
pending_endpoints AS (
    (SELECT p.endpoint_id FROM webhook_deliveries p WHERE p.status = 'pending' ORDER BY p.endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT p.endpoint_id FROM webhook_deliveries p
             WHERE p.status = 'pending' AND p.endpoint_id > pe.endpoint_id
             ORDER BY p.endpoint_id LIMIT 1)
    FROM pending_endpoints pe
    WHERE pe.endpoint_id IS NOT NULL
),
candidates AS (
    SELECT due.id, due.next_attempt_at, due.seq, w.merchant_id, w.id AS endpoint_id, quota.left_here
    FROM pending_endpoints pe
    JOIN webhook_endpoints w ON w.id = pe.endpoint_id
    CROSS JOIN LATERAL (
        SELECT CASE WHEN w.consecutive_timeouts >= %(probe_after)s THEN 1
                    ELSE %(per_endpoint)s - COALESCE((
                         SELECT eb.n FROM unnest(%(busy_endpoints)s::text[], %(endpoint_busy)s::int[])
                                       AS eb(endpoint_id, n)
                          WHERE eb.endpoint_id = w.id), 0) END AS left_here
    ) quota
    CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, d.seq
        FROM webhook_deliveries d
        WHERE d.endpoint_id = w.id AND """
    + _DUE
    + """
        ORDER BY d.next_attempt_at, d.seq
        LIMIT CASE WHEN w.consecutive_timeouts >= %(probe_after)s THEN 1
                   ELSE greatest(quota.left_here + %(ahead)s, 0) END
        FOR UPDATE SKIP LOCKED
    ) due
    WHERE w.status <> 'disabled' AND NOT (w.id = ANY(%(skip)s::text[]))
      AND (w.paused_until IS NULL OR w.paused_until <= %(now)s)
      AND (w.consecutive_timeouts < %(probe_after)s OR NOT EXISTS (
            SELECT 1 FROM webhook_deliveries leased
             WHERE leased.endpoint_id = w.id AND leased.status = 'pending' AND NOT """
    + claim_free("leased")
    + """))
),
ranked AS (
    SELECT c.*, row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.seq)
                  > c.left_here AS ahead
    FROM candidates c
),
loaded AS (
    SELECT r.id, r.next_attempt_at, r.seq, r.ahead,
           COALESCE(busy.n, 0)
             + row_number() OVER (PARTITION BY r.merchant_id ORDER BY r.ahead, r.next_attempt_at, r.seq)
             AS load
    FROM ranked r
    LEFT JOIN busy ON busy.merchant_id = r.merchant_id
),
ordered AS (
    SELECT l.id, l.load,
           row_number() OVER (ORDER BY l.ahead, l.load, l.next_attempt_at, l.seq) AS position
    FROM loaded l
    WHERE l.load <= %(per_merchant)s
),
locked AS (
    SELECT o.id
    FROM ordered o
    WHERE o.position <= %(limit)s AND (o.load = 1 OR o.position <= %(limit)s - %(reserve)s)
)
UPDATE webhook_deliveries d
   SET """
    + STAMP
    + """, requeued = false, updated_at = now()
  FROM events e, webhook_endpoints w
 WHERE d.id = ANY(ARRAY(SELECT locked.id FROM locked)) AND e.id = d.event_id AND w.id = d.endpoint_id
RETURNING d.id, d.endpoint_id, d.event_id, d.attempt_count, e.type AS event_type, e.payload,
          w.url, w.merchant_id, w.environment, w.secret_sealed, w.secret_key_id
"""
)
# Attempts' records in one statement (one round trip, atomic without a transaction block): the delivery
# rows are locked first (in id order, so two cores' batches never deadlock), each attempt is logged, and
# only a worker whose claim token still matches settles its row. If a resend came in during the attempt
# (`requeued`), the row is released due as the resend left it instead of being settled. Each row comes back
# with its endpoint's health, for the caller to update the endpoints whose health changes; a delivery gone
# (deleted with its endpoint) comes back with none.
_RECORD = (
    """
WITH input AS (
    SELECT * FROM unnest(%(ids)s::text[], %(tokens)s::text[], %(attempted_at)s::timestamptz[],
                         %(status_codes)s::int[], %(latencies)s::int[], %(errors)s::text[],
                         %(succeeded)s::boolean[], %(statuses)s::text[], %(next_attempts)s::timestamptz[])
        AS i(id, token, attempted_at, status_code, latency_ms, error, succeeded, status, next_attempt_at)
),
d AS (
    SELECT w.id, w.endpoint_id, w.claim_token, w.requeued FROM webhook_deliveries w
     WHERE w.id = ANY(%(ids)s::text[]) ORDER BY w.id FOR UPDATE
),
attempt AS (
    INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, succeeded)
    SELECT d.id, i.attempted_at, i.status_code, i.latency_ms, i.error, i.succeeded
      FROM d JOIN input i ON i.id = d.id
),
settled AS (
    UPDATE webhook_deliveries w
       SET status = CASE WHEN d.requeued THEN w.status ELSE i.status END,
           attempt_count = w.attempt_count + CASE WHEN d.requeued THEN 0 ELSE 1 END,
           next_attempt_at = CASE WHEN d.requeued THEN w.next_attempt_at ELSE i.next_attempt_at END,
           """
    + RELEASED
    + """, requeued = false, updated_at = now()
      FROM d JOIN input i ON i.id = d.id
     WHERE w.id = d.id AND d.claim_token = i.token
)
SELECT d.id, d.endpoint_id, e.status, e.consecutive_failures, e.consecutive_timeouts, e.paused_until,
       d.requeued AND d.claim_token = i.token AS released
  FROM d JOIN input i ON i.id = d.id JOIN webhook_endpoints e ON e.id = d.endpoint_id
"""
)
_LOCK_ENDPOINT_HEALTH = """
SELECT status, consecutive_failures, consecutive_timeouts, paused_until
  FROM webhook_endpoints WHERE id = %s FOR NO KEY UPDATE
"""
_SET_ENDPOINT_HEALTH = """
UPDATE webhook_endpoints
   SET status = %(status)s, consecutive_failures = %(failures)s, consecutive_timeouts = %(timeouts)s,
       paused_until = %(paused_until)s, updated_at = now()
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
# The claims a core's dispatcher process held when it died: pending rows only (a claim is only ever taken
# on one, and the record that settles a row releases its claim). A resend that came in meanwhile needs no
# `requeued` mark any more: the row is due as the resend left it.
_RELEASE_ABANDONED = (
    "UPDATE webhook_deliveries SET "
    + RELEASED
    + """, requeued = false, updated_at = now()
 WHERE status = 'pending' AND claimed_by = %(claim_by)s"""
)


def _health(row: dict[str, Any]) -> EndpointHealth:
    return EndpointHealth(WebhookEndpointStatus(row["status"]), row["consecutive_failures"])


def _pause(row: dict[str, Any]) -> EndpointPause:
    return EndpointPause(row["consecutive_timeouts"], row["paused_until"])


@dataclass(frozen=True, slots=True)
class _Outcome:
    succeeded: bool
    timed_out: bool
    now: datetime


def _after(row: dict[str, Any], outcomes: Sequence[_Outcome]) -> tuple[EndpointHealth, EndpointPause]:
    """The endpoint's health and pause after its attempts' outcomes, in order."""
    health, pause = _health(row), _pause(row)
    for outcome in outcomes:
        health = health.after_attempt(outcome.succeeded)
        pause = pause.after_attempt(outcome.succeeded, outcome.timed_out, outcome.now)
    return health, pause


def _unchanged(row: dict[str, Any], after: tuple[EndpointHealth, EndpointPause]) -> bool:
    return after == (_health(row), _pause(row))


CLAIM_JOB = "webhook_deliveries"


def claim_limits(
    now: datetime,
    limit: int,
    *,
    per_endpoint: int,
    ahead: int,
    skip_endpoints: Sequence[str],
    per_merchant: int,
    merchant_busy: Mapping[str, int],
    endpoint_busy: Mapping[str, int],
    reserve: int,
) -> dict[str, Any]:
    """`_CLAIM`'s parameters but the claim's own (`PgJobClaims.params`): the time, the slots and quotas."""
    return {
        "now": now,
        "limit": limit,
        "per_endpoint": per_endpoint,
        "ahead": ahead,
        "skip": list(skip_endpoints),
        "per_merchant": per_merchant,
        "busy_merchants": list(merchant_busy),
        "merchant_busy": list(merchant_busy.values()),
        "busy_endpoints": list(endpoint_busy),
        "endpoint_busy": list(endpoint_busy.values()),
        "reserve": reserve,
        "probe_after": PAUSE_AFTER_TIMEOUTS,
    }


def _record_params(records: Sequence[AttemptRecord]) -> dict[str, Any]:
    """The columns of `_RECORD`'s input, one array each."""
    statuses = []
    for record in records:
        if record.attempt.succeeded:
            statuses.append(DeliveryStatus.SUCCEEDED)
        else:
            statuses.append(DeliveryStatus.PENDING if record.retry_at is not None else DeliveryStatus.FAILED)
    return {
        "ids": [r.claimed.delivery_id for r in records],
        "tokens": [r.claimed.claim_token for r in records],
        "attempted_at": [r.attempt.attempted_at for r in records],
        "status_codes": [r.attempt.status_code for r in records],
        "latencies": [r.attempt.latency_ms for r in records],
        "errors": [r.attempt.error for r in records],
        "succeeded": [r.attempt.succeeded for r in records],
        "statuses": [status.value for status in statuses],
        "next_attempts": [
            r.retry_at if status is DeliveryStatus.PENDING else None
            for r, status in zip(records, statuses, strict=True)
        ],
    }


class PgDeliveryQueue:
    def __init__(self, pool: DbPool, jobs: PgJobClaims | None = None) -> None:
        self._pool = pool
        # The claims' parameters (this core's name, the heartbeat lapse).
        self._jobs = jobs or PgJobClaims(pool)

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
        merchant_busy: Mapping[str, int],
        reserve: int,
        token: str,
        endpoint_busy: Mapping[str, int] | None = None,
        ahead: int = 0,
    ) -> list[ClaimedDelivery]:
        endpoint_busy = endpoint_busy or {}
        params = {
            **self._jobs.params(JobClaim(CLAIM_JOB, now, lease_until - now, token)),
            **claim_limits(
                now,
                limit,
                per_endpoint=per_endpoint,
                ahead=ahead,
                skip_endpoints=skip_endpoints,
                per_merchant=per_merchant,
                merchant_busy=merchant_busy,
                endpoint_busy=endpoint_busy,
                reserve=reserve,
            ),
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
    async def release_abandoned(self) -> int:
        """Hands back every delivery claim made in this core's name; returns how many. Only for when the
        core's dispatcher process has died: none of those attempts is under way any more, so the pairs go
        again at once instead of when their leases lapse (the core's heartbeat, which would free them,
        goes on). An attempt that reached its receiver before the death is sent again (at-least-once)."""
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_RELEASE_ABANDONED, {"claim_by": self._jobs.process})
            return cursor.rowcount

    @wraps_psycopg_errors
    async def announce(self) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_NOTIFY, (DELIVERY_CHANNEL,))

    @wraps_psycopg_errors
    async def record(self, records: Sequence[AttemptRecord]) -> list[bool]:
        if not records:
            return []
        try:
            async with self._pool.connection() as conn:
                rows = await (await conn.execute(_RECORD, _record_params(records))).fetchall()
                by_id = {row["id"]: row for row in rows}
                outcomes: dict[str, list[_Outcome]] = {}
                for record in records:
                    if record.claimed.delivery_id in by_id:
                        outcome = _Outcome(record.attempt.succeeded, record.timed_out, record.now)
                        outcomes.setdefault(record.claimed.endpoint_id, []).append(outcome)
                seen = {row["endpoint_id"]: row for row in rows}
                for endpoint_id, endpoint_outcomes in outcomes.items():
                    row = seen[endpoint_id]
                    if not _unchanged(row, _after(row, endpoint_outcomes)):
                        await self._update_health(conn, endpoint_id, endpoint_outcomes)
        except psycopg.errors.ForeignKeyViolation:
            if len(records) == 1:
                return [False]  # the endpoint was deleted while the attempt was in flight: nothing left
            # One of them lost its endpoint meanwhile: each on its own, so the others are recorded.
            return [answer for record in records for answer in await self.record([record])]
        return [
            bool(by_id[r.claimed.delivery_id]["released"]) if r.claimed.delivery_id in by_id else False
            for r in records
        ]

    @staticmethod
    async def _update_health(
        conn: psycopg.AsyncConnection[Any], endpoint_id: str, outcomes: Sequence[_Outcome]
    ) -> None:
        """The endpoint's failure count and status, by EndpointHealth's rule, and its pause, by
        EndpointPause's, after its outcomes in order.

        Its own short transaction, taken only when the record saw a change coming: a healthy endpoint's
        successes write nothing, so concurrent deliveries to one endpoint do not queue on its row. (A
        crash between the two can miss one count; the attempts themselves are recorded.)
        """
        async with conn.transaction():
            row = await (await conn.execute(_LOCK_ENDPOINT_HEALTH, (endpoint_id,))).fetchone()
            if row is None:
                return
            health, pause = _after(row, outcomes)
            if not _unchanged(row, (health, pause)):
                params = {
                    "id": endpoint_id,
                    "status": health.status.value,
                    "failures": health.consecutive_failures,
                    "timeouts": pause.consecutive_timeouts,
                    "paused_until": pause.paused_until,
                }
                await conn.execute(_SET_ENDPOINT_HEALTH, params)

    @wraps_psycopg_errors
    async def list_for_endpoint(
        self, endpoint_id: str, limit: int, starting_after: str | None, tenant: str = ""
    ) -> Page[WebhookDelivery]:
        params = {"endpoint_id": endpoint_id, "cursor": starting_after, "limit": limit + 1}
        async with gate_for(self._pool).slot(tenant), self._pool.connection() as conn:
            prepare = prepare_for(params, ("cursor",))
            page = Page.of(await (await conn.execute(_PAGE, params, prepare=prepare)).fetchall(), limit)
            attempts: dict[str, list[DeliveryAttempt]] = {row["id"]: [] for row in page.items}
            if page.items:
                for attempt_row in await (await conn.execute(ATTEMPTS_SELECT, (list(attempts),))).fetchall():
                    attempts[attempt_row["delivery_id"]].append(attempt_from_row(attempt_row))
        return Page([delivery_from_row(row, attempts[row["id"]]) for row in page.items], page.has_more)

    @wraps_psycopg_errors
    async def delivery_exists(self, endpoint_id: str, delivery_id: str) -> bool:
        async with self._pool.connection() as conn:
            return await (await conn.execute(_EXISTS, (delivery_id, endpoint_id))).fetchone() is not None
