"""PgChargeRepository: charges with their refunds, dispute, outbox events and fenced writes."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import DictRow

from core_server.db.errors import StaleFence, wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for, point_read_gate_for
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import FirstClaim, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.storage.clock_offsets import sandbox_rows
from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
from core_server.kernel.storage.job_claims import PgJobClaims, unclaimed
from core_server.kernel.storage.list_pages import counted_page_sql, fetch_counted_page
from core_server.kernel.storage.outbox import DeliveryAnnouncer, announcer_for
from core_server.payments.application.ports import ChargeQuery, DayVolume, InvoiceAttemptTaken
from core_server.payments.domain.charge import AUTHORIZATION_HOLD, Charge
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.refund import Refund
from core_server.payments.storage.charge_rows import charge_from_row, dispute_from_row, refund_from_row
from core_server.payments.storage.charge_writes import create_statement, save_statement

_ACTIVATE = "UPDATE charges SET fence_token = fence_token + 1 WHERE id = %s RETURNING *"
_SELECT_CHARGE = "SELECT * FROM charges WHERE id = %s"
_SELECT_REFUNDS = "SELECT * FROM refunds WHERE charge_id = ANY(%s) ORDER BY seq"
_DISPUTE_CHARGE = "SELECT charge_id FROM disputes WHERE id = %s"
_SELECT_INVOICE_ATTEMPT = "SELECT * FROM charges WHERE invoice_id = %s AND invoice_attempt = %s"
# The unique index of 0010_invoice_charges.sql: one charge per (invoice, attempt).
_INVOICE_ATTEMPT_INDEX = "charges_invoice_attempt"
_SELECT_DISPUTES = "SELECT * FROM disputes WHERE charge_id = ANY(%s)"
# The status a read at the merchant's time `seen_at` shows (Charge.seen_at): the timers that fell due
# applied, so a `status` filter agrees with the statuses on the page. `hold_start` = seen_at − 7 days.
_SEEN_STATUS = """
CASE
  WHEN status = 'pending' AND authorization_due_at IS NOT NULL THEN
    CASE WHEN authorization_due_at > %(seen_at)s THEN 'pending'
         WHEN authorization_due_at <= %(hold_start)s THEN 'voided'
         ELSE 'authorized' END
  WHEN status = 'pending' AND expires_at <= %(seen_at)s THEN 'expired'
  WHEN status = 'authorized' AND authorized_at <= %(hold_start)s THEN 'voided'
  ELSE status
END"""
_FILTERS = (
    """
FROM charges
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND (%(status)s::text IS NULL
       OR (%(seen_at)s::timestamptz IS NULL AND status = %(status)s)
       OR (%(seen_at)s::timestamptz IS NOT NULL AND """
    + _SEEN_STATUS
    + """ = %(status)s))
  AND (%(created_after)s::timestamptz IS NULL OR created_at > %(created_after)s)
  AND (%(created_before)s::timestamptz IS NULL OR created_at < %(created_before)s)
  AND (%(customer_email)s::text IS NULL OR lower(customer_email) = lower(%(customer_email)s))
  AND (%(invoice_id)s::text IS NULL OR invoice_id = %(invoice_id)s)
"""
)
# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("status", "created_after", "created_before", "customer_email", "invoice_id", "cursor")
_PAGE = (
    "SELECT * "
    + _FILTERS
    + """
  AND (%(cursor)s::text IS NULL OR (created_at, seq) < (
        SELECT created_at, seq FROM charges
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY created_at DESC, seq DESC
LIMIT %(limit)s
"""
)
_COUNT = "SELECT count(*) AS n " + _FILTERS
# A list in one statement: the count joined to the page (a row even when the page is empty), each charge
# with its refunds and dispute as JSON. One statement, not a pipeline: a request cancelled inside a
# psycopg pipeline could hand a connection back to the pool with its implicit transaction still open.
_LIST = counted_page_sql(
    count=_COUNT,
    page=_PAGE,
    order="p.created_at DESC, p.seq DESC",
    columns="(SELECT jsonb_agg(to_jsonb(r) ORDER BY r.seq) FROM refunds r WHERE r.charge_id = p.id)"
    " AS list_refunds,\n       (SELECT to_jsonb(d) FROM disputes d WHERE d.charge_id = p.id) AS list_dispute",
)
# Volume per UTC day and currency: the listing index narrows to the merchant and environment.
_DAILY_VOLUME = """
SELECT date_trunc('day', captured_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, currency,
       sum(amount_captured)::bigint AS amount, count(*) AS n
FROM charges
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND captured_at >= %(since)s AND captured_at < %(until)s AND amount_captured IS NOT NULL
GROUP BY 1, 2
ORDER BY 1, 2
"""
_CURSOR_EXISTS = (
    "SELECT 1 FROM charges WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s "
    "AND environment = %(environment)s"
)
# Due-ness is judged at each merchant's own time: real time, plus the sandbox clock's offset for TEST
# charges of a merchant who advanced it. Offsets are never negative, so everything due at real time is
# due (first part, a range scan of the partial index); the second part adds what only an advanced
# clock made due. `merchant_id`/`environment` (both or neither) keep one merchant's charges only.
_OWNER_FILTER = (
    "(%(merchant_id)s::text IS NULL OR (c.merchant_id = %(merchant_id)s AND c.environment = %(environment)s))"
    " AND " + unclaimed("c.id")
)
_DUE_AUTHORIZATIONS = (
    """
(SELECT c.id FROM charges c
  WHERE c.status = 'pending' AND c.authorization_due_at <= %(now)s AND """
    + _OWNER_FILTER
    + """
  ORDER BY c.authorization_due_at LIMIT %(limit)s)
UNION ALL
(SELECT c.id FROM """
    + sandbox_rows("charges", "c")
    + """
  WHERE c.status = 'pending' AND c.authorization_due_at > %(now)s
    AND c.authorization_due_at <= %(now)s + tc.time_offset AND """
    + _OWNER_FILTER
    + """
  ORDER BY c.authorization_due_at LIMIT %(limit)s)
"""
)
# Checkouts past their 24 h, and authorizations past their 7-day hold (`hold_start` = now − 7 days): the
# charges whose Charge.timer_due_at has come and is not an outstanding authorization's (that timer is
# _DUE_AUTHORIZATIONS'; a checkout paid just before its 24 h waits for it, not expires).
_DUE_FOR_EXPIRY = (
    """
(SELECT c.id FROM charges c
  WHERE c.status = 'pending' AND c.authorization_due_at IS NULL AND c.expires_at <= %(now)s AND """
    + _OWNER_FILTER
    + """
  ORDER BY c.expires_at LIMIT %(limit)s)
UNION ALL
(SELECT c.id FROM charges c
  WHERE c.status = 'authorized' AND c.authorized_at <= %(hold_start)s AND """
    + _OWNER_FILTER
    + """
  ORDER BY c.authorized_at LIMIT %(limit)s)
UNION ALL
(SELECT c.id FROM """
    + sandbox_rows("charges", "c")
    + """
  WHERE ((c.status = 'pending' AND c.authorization_due_at IS NULL
          AND c.expires_at > %(now)s AND c.expires_at <= %(now)s + tc.time_offset)
      OR (c.status = 'authorized' AND c.authorized_at > %(hold_start)s
          AND c.authorized_at <= %(hold_start)s + tc.time_offset))
    AND """
    + _OWNER_FILTER
    + """
  LIMIT %(limit)s)
"""
)


def _due_params(now: datetime, limit: int, owner: Owner | None) -> dict[str, Any]:
    """The due queries' own parameters (PgJobClaims.due adds the claim's)."""
    return {
        "now": now,
        "hold_start": now - AUTHORIZATION_HOLD,
        "limit": limit,
        "merchant_id": owner.merchant_id if owner else None,
        "environment": owner.environment.value if owner else None,
    }


class PgChargeRepository:
    def __init__(
        self,
        pool: DbPool,
        claims: PgIdempotencyStore | None = None,
        jobs: PgJobClaims | None = None,
        announcer: DeliveryAnnouncer | None = None,
    ) -> None:
        self._pool = pool
        # Wakes the webhook dispatchers after a write that queued deliveries has committed.
        self._announcer = announcer or announcer_for(pool)
        # The timers' claims (kernel/storage/job_claims.py), in this core's name.
        self._jobs = jobs or PgJobClaims(pool)
        # Lists count and page in PostgreSQL: a few at a time, the rest queue in order (scan_gate).
        self._scans = gate_for(pool)
        # Keys the fingerprints of first claims exactly as the idempotency store keys its own.
        self._claims = claims or PgIdempotencyStore(pool)

    @wraps_psycopg_errors
    async def insert_new(self, charge: Charge, write: TurnWrite, claim: FirstClaim | None) -> bool:
        claim_params = self._claims.first_claim_params(claim) if claim is not None else None
        statement, params = create_statement(charge, write, claim_params)
        try:
            async with self._pool.connection() as conn:
                row = await (await conn.execute(statement, params)).fetchone()
            self._announcer.queued(row["queued"] if row else 0)
        except psycopg.errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "charges_pkey":
                raise IdCollision(charge.id) from exc
            if exc.diag.constraint_name == _INVOICE_ATTEMPT_INDEX:
                raise InvoiceAttemptTaken(f"{charge.invoice_id} attempt {charge.invoice_attempt}") from exc
            raise
        return bool(row and row["written"])

    @wraps_psycopg_errors
    async def load_for_activation(self, charge_id: str) -> tuple[Charge, int] | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_ACTIVATE, (charge_id,))).fetchone()
            if row is None:
                return None
            charge = (await self._hydrate(conn, [row]))[0]
            return charge, row["fence_token"]

    @wraps_psycopg_errors
    async def save(self, charge: Charge, fence: int, write: TurnWrite) -> None:
        statement, params = save_statement(charge, fence, write)
        async with self._pool.connection() as conn:
            row = await (await conn.execute(statement, params)).fetchone()
        self._announcer.queued(row["queued"] if row else 0)
        if not row or row["written"] != 1:
            raise StaleFence(f"charge {charge.id}: fence {fence} is no longer current")

    @wraps_psycopg_errors
    async def get(self, charge_id: str) -> Charge | None:
        # A slot of the point reads' gate first (scan_gate.py): the API's busiest read, all CPU in PostgreSQL.
        async with point_read_gate_for(self._pool).slot(), self._pool.connection() as conn:
            row = await (await conn.execute(_SELECT_CHARGE, (charge_id,))).fetchone()
            if row is None:
                return None
            return (await self._hydrate(conn, [row]))[0]

    @wraps_psycopg_errors
    async def list(self, query: ChargeQuery) -> Page[Charge]:
        params = {
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
            "status": query.status.value if query.status else None,
            "created_after": query.created_after,
            "created_before": query.created_before,
            "cursor": query.starting_after,
            "limit": query.limit + 1,
            "seen_at": query.seen_at,
            "hold_start": query.seen_at - AUTHORIZATION_HOLD if query.seen_at else None,
            "customer_email": query.customer_email,
            "invoice_id": query.invoice_id,
        }
        async with self._scans.slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_counted_page(conn, _LIST, params, query.limit, optional=_OPTIONAL)
        return Page([_from_list_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def cursor_exists(self, query: ChargeQuery) -> bool:
        params = {
            "cursor": query.starting_after,
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
        }
        async with self._pool.connection() as conn:
            return await (await conn.execute(_CURSOR_EXISTS, params)).fetchone() is not None

    @wraps_psycopg_errors
    async def daily_volume(
        self, merchant_id: str, environment: Environment, since: datetime, until: datetime
    ) -> builtins.list[DayVolume]:
        params = {
            "merchant_id": merchant_id,
            "environment": environment.value,
            "since": since,
            "until": until,
        }
        async with self._scans.slot(merchant_id), self._pool.connection() as conn:
            rows = await (await conn.execute(_DAILY_VOLUME, params)).fetchall()
        return [DayVolume(row["day"], row["currency"], row["amount"], row["n"]) for row in rows]

    @wraps_psycopg_errors
    async def due_for_expiry(
        self, claim: JobClaim, limit: int, owner: Owner | None = None
    ) -> builtins.list[str]:
        """Charges to expire or void, claimed for `claim` unless `owner` (see TimerSweep's DueWork)."""
        params = _due_params(claim.now, limit, owner)
        async with self._pool.connection() as conn:
            return await self._jobs.due(conn, _DUE_FOR_EXPIRY, params, claim, claiming=owner is None)

    @wraps_psycopg_errors
    async def due_authorizations(
        self, claim: JobClaim, limit: int, owner: Owner | None = None
    ) -> builtins.list[str]:
        """Asynchronous authorizations due, claimed for `claim` unless `owner`."""
        params = _due_params(claim.now, limit, owner)
        async with self._pool.connection() as conn:
            return await self._jobs.due(conn, _DUE_AUTHORIZATIONS, params, claim, claiming=owner is None)

    @wraps_psycopg_errors
    async def find_invoice_attempt(self, invoice_id: str, attempt: int) -> Charge | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SELECT_INVOICE_ATTEMPT, (invoice_id, attempt))).fetchone()
            if row is None:
                return None
            return (await self._hydrate(conn, [row]))[0]

    @wraps_psycopg_errors
    async def charge_id_for_dispute(self, dispute_id: str) -> str | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_DISPUTE_CHARGE, (dispute_id,))).fetchone()
        return row["charge_id"] if row else None

    async def _hydrate(
        self, conn: AsyncConnection[DictRow], rows: builtins.list[DictRow]
    ) -> builtins.list[Charge]:
        """Attaches refunds (oldest first) and disputes with two queries for the whole page."""
        if not rows:
            return []
        ids = [row["id"] for row in rows]
        refunds: dict[str, builtins.list[Refund]] = {charge_id: [] for charge_id in ids}
        disputes: dict[str, Dispute] = {}
        if any(row["amount_refunded"] for row in rows):
            for refund_row in await (await conn.execute(_SELECT_REFUNDS, (ids,))).fetchall():
                refunds[refund_row["charge_id"]].append(refund_from_row(refund_row))
        if any(row["disputed_at"] is not None for row in rows):
            for dispute_row in await (await conn.execute(_SELECT_DISPUTES, (ids,))).fetchall():
                disputes[dispute_row["charge_id"]] = dispute_from_row(dispute_row)
        return [charge_from_row(row, refunds[row["id"]], disputes.get(row["id"])) for row in rows]


def _from_list_row(row: dict[str, Any]) -> Charge:
    """A charge of _LIST: its refunds and dispute arrive as JSON, timestamps as ISO text."""
    refunds = [refund_from_row(_with_time(r)) for r in row["list_refunds"] or ()]
    dispute = dispute_from_row(_with_time(row["list_dispute"])) if row["list_dispute"] else None
    return charge_from_row(row, refunds, dispute)


def _with_time(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "created_at": datetime.fromisoformat(data["created_at"])}
