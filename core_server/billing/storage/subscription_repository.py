"""PgSubscriptionRepository: subscriptions with their items, pending prorations, invoices and notices;
fenced saves; the billing run's due query and its claims."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import DictRow

from core_server.billing.application.subscription_ports import InvoiceQuery, SubscriptionQuery
from core_server.billing.domain.events import TRIAL_WILL_END
from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_item import PendingProration, SubscriptionItem
from core_server.billing.storage.subscription_rows import (
    invoice_from_row,
    item_from_row,
    proration_from_row,
    subscription_from_row,
)
from core_server.billing.storage.subscription_writes import create_statement, save_statement
from core_server.db.errors import StaleFence, StorageError, wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import FirstClaim, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.storage.clock_offsets import merchant_time_join
from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
from core_server.kernel.storage.job_claims import PgJobClaims, unclaimed
from core_server.kernel.storage.list_pages import fetch_page_and_count
from core_server.kernel.storage.outbox import DeliveryAnnouncer, announcer_for

PERIOD_INVOICE_INDEX = "invoices_one_per_period"
"""The unique index of migration 0011: one create, cycle or resume invoice per (subscription, period)."""
IDEMPOTENCY_KEY_INDEX = "subscriptions_idempotency_key"
"""One subscription per Idempotency-Key of a tenant, even for creates that did not claim the key."""


class PeriodAlreadyInvoiced(StorageError):
    """A second invoice for a period that has one (invoices_one_per_period); nothing was written.

    A subscription's saves are serialized by its fence, so this is a backstop against a double billing
    turn rather than an answer a client can provoke."""


_ACTIVATE = "UPDATE subscriptions SET fence_token = fence_token + 1 WHERE id = %s RETURNING *"
_TENANT = " WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
_GET = "SELECT * FROM subscriptions" + _TENANT + " AND id = %(id)s"
_FIND = "SELECT * FROM subscriptions WHERE id = %(id)s"
_EXISTS = "SELECT 1 FROM subscriptions" + _TENANT + " AND id = %(id)s"
_BY_KEY = "SELECT * FROM subscriptions" + _TENANT + " AND idempotency_key = %(key)s"
# Every item, base first, then in the order they were added.
_ITEMS = "SELECT * FROM subscription_items WHERE subscription_id = ANY(%s) ORDER BY is_base_item DESC, seq"
_UNBILLED = "SELECT * FROM pending_prorations WHERE subscription_id = ANY(%s) AND NOT billed ORDER BY seq"
# The invoices still owed (domain/subscription_status.py's still_owed): OPEN, or UNCOLLECTIBLE while UNPAID.
_OWED_INVOICES = """
SELECT i.* FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
 WHERE i.subscription_id = ANY(%s)
   AND (i.status = 'OPEN' OR (i.status = 'UNCOLLECTIBLE' AND s.status = 'UNPAID'))
 ORDER BY i.seq"""
# The notices that still matter: those of the current period (or later) and every trial notice (a trial
# happens once, so they are a handful); older periods' notices can never be due again.
_NOTICES = """
SELECT n.subscription_id, n.kind, n.announced
  FROM subscription_notices n JOIN subscriptions s ON s.id = n.subscription_id
 WHERE n.subscription_id = ANY(%(ids)s)
   AND (n.announced >= s.current_period_start OR n.kind = %(trial_kind)s)"""
# The newest paid invoice of a period (an update invoice bills prorations only, not a period).
_LAST_PAID = """
SELECT * FROM invoices
 WHERE subscription_id = %s AND status = 'PAID'
   AND billing_reason IN ('subscription_create', 'subscription_cycle', 'subscription_resume')
 ORDER BY seq DESC LIMIT 1"""

# Lists are newest first; the cursor row is the caller's own (checked before), so its seq bounds the page.
_SUBSCRIPTION_FILTERS = (
    " FROM subscriptions"
    + _TENANT
    + " AND (%(customer_id)s::text IS NULL OR customer_id = %(customer_id)s)"
    + " AND (%(status)s::text IS NULL OR status = %(status)s)"
    + " AND (%(price_id)s::text IS NULL OR price_id = %(price_id)s)"
)
_LIST = (
    "SELECT *"
    + _SUBSCRIPTION_FILTERS
    + " AND (%(starting_after)s::text IS NULL"
    + " OR seq < (SELECT seq FROM subscriptions WHERE id = %(starting_after)s::text))"
    + " ORDER BY seq DESC LIMIT %(fetch)s"
)
_COUNT = "SELECT count(*) AS n" + _SUBSCRIPTION_FILTERS

# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("customer_id", "status", "price_id", "starting_after")
_INVOICE_OPTIONAL = ("subscription_id", "customer_id", "status", "starting_after")
_INVOICE_GET = "SELECT * FROM invoices" + _TENANT + " AND id = %(id)s"
_INVOICE_EXISTS = "SELECT 1 FROM invoices" + _TENANT + " AND id = %(id)s"
_INVOICE_FILTERS = (
    " FROM invoices"
    + _TENANT
    + " AND (%(subscription_id)s::text IS NULL OR subscription_id = %(subscription_id)s)"
    + " AND (%(customer_id)s::text IS NULL OR customer_id = %(customer_id)s)"
    + " AND (%(status)s::text IS NULL OR status = %(status)s)"
)
_INVOICE_LIST = (
    "SELECT *"
    + _INVOICE_FILTERS
    + " AND (%(starting_after)s::text IS NULL"
    + " OR seq < (SELECT seq FROM invoices WHERE id = %(starting_after)s::text))"
    + " ORDER BY seq DESC LIMIT %(fetch)s"
)
_INVOICE_COUNT = "SELECT count(*) AS n" + _INVOICE_FILTERS

# -- the billing run's due query ---------------------------------------------------------------------------
# A subscription is due when its earliest step (billing_steps.next_step_at, stored by every save in
# next_step_at) falls at or before its merchant's time m = real time + the sandbox clock's offset (TEST
# subscriptions of a merchant who advanced it; LIVE and everyone else: real time). The rules themselves
# live in the domain only; here is one index range (subscriptions_next_step, migration 0026).

# The periodic run: the earliest-due batch no other core holds a claim on; PgJobClaims.due claims it in
# the same statement (kernel/storage/job_claims.py), so two cores take different batches. Ranges read in
# index order and stopped at the batch: what is due at real time, and, per merchant whose sandbox clock
# moved, its TEST subscriptions up to its time (offsets are never negative, so what is due at real time is
# due at m too; a row in both is one row of the UNION). A claimed row is passed over inside a range, so a
# batch held by another core does not hide the ones behind it. The sandbox ranges go per clock
# (subscriptions_test_next_step, migration 0028). They used to be one range over the platform's TEST
# subscriptions in next-step order, probing each one's clock, which read every TEST subscription whenever
# the batch was not filled: on almost every run.
_CLAIM_DUE = (
    """
SELECT id FROM (
  (SELECT s.id, s.next_step_at, s.seq FROM subscriptions s
    WHERE s.next_step_at <= %(now)s AND """
    + unclaimed("s.id")
    + """
    ORDER BY s.next_step_at, s.seq LIMIT %(limit)s)
  UNION
  (SELECT x.id, x.next_step_at, x.seq FROM test_clocks tc
     CROSS JOIN LATERAL (
       SELECT s.id, s.next_step_at, s.seq FROM subscriptions s
        WHERE s.merchant_id = tc.merchant_id AND s.environment = 'test' AND s.next_step_at IS NOT NULL
          AND s.next_step_at <= %(now)s + tc.time_offset AND """
    + unclaimed("s.id")
    + """
        ORDER BY s.next_step_at, s.seq LIMIT %(limit)s) x
    ORDER BY x.next_step_at, x.seq LIMIT %(limit)s)
) due
 ORDER BY next_step_at, seq
 LIMIT %(limit)s"""
)

# After one merchant's sandbox clock moved: all its due subscriptions of that environment, claimed or
# not (the advance must see every step it made due; the actor serializes the runs of one subscription).
_OWNER_DUE = (
    "SELECT s.id FROM subscriptions s\n  "
    + merchant_time_join("s.merchant_id", "s.environment", "m")
    + """
 WHERE s.merchant_id = %(merchant_id)s AND s.environment = %(environment)s
   AND s.next_step_at <= m.at
 ORDER BY s.next_step_at, s.seq
 LIMIT %(limit)s"""
)


def _due_params(real_now: datetime, limit: int, owner: Owner | None) -> dict[str, Any]:
    return {
        "now": real_now,
        "limit": limit,
        "merchant_id": owner.merchant_id if owner else None,
        "environment": owner.environment.value if owner else None,
    }


def _tenant(merchant_id: str, environment: Environment, object_id: str) -> dict[str, Any]:
    return {"merchant_id": merchant_id, "environment": environment.value, "id": object_id}


class PgSubscriptionRepository:
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
        # The billing run's claims (kernel/storage/job_claims.py), in this core's name.
        self._jobs = jobs or PgJobClaims(pool)
        # Keys the fingerprints of first claims exactly as the idempotency store keys its own.
        self._claims = claims or PgIdempotencyStore(pool)

    @wraps_psycopg_errors
    async def insert_new(
        self, subscription: Subscription, write: TurnWrite, claim: FirstClaim | None
    ) -> bool:
        claim_params = self._claims.first_claim_params(claim) if claim is not None else None
        statement, params = create_statement(subscription, write, claim_params)
        try:
            async with self._pool.connection() as conn:
                row = await (await conn.execute(statement, params)).fetchone()
            self._announcer.queued(row["queued"] if row else 0)
        except psycopg.errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "subscriptions_pkey":
                raise IdCollision(subscription.id) from exc
            if exc.diag.constraint_name == IDEMPOTENCY_KEY_INDEX:
                return False  # a concurrent create with this key wrote its subscription first
            raise _period_taken(exc, subscription) from exc
        return bool(row and row["written"])

    @wraps_psycopg_errors
    async def load_for_activation(self, subscription_id: str) -> tuple[Subscription, int] | None:
        """The fence taken and the state read in one round trip: the child reads need only the id, and
        the server runs the pipeline's statements in order, so they read after the fence moved."""
        async with self._pool.connection() as conn:
            async with conn.pipeline():
                activated = await conn.execute(_ACTIVATE, (subscription_id,))
                reads = await _child_reads(conn, [subscription_id])
            row = await activated.fetchone()
            if row is None:
                return None
            subscription = (await _assemble([row], reads))[0]
            return subscription, row["fence_token"]

    @wraps_psycopg_errors
    async def save(
        self, subscription: Subscription, fence: int, write: TurnWrite, previous: Subscription | None = None
    ) -> None:
        statement, params = save_statement(subscription, fence, write, previous)
        try:
            async with self._pool.connection() as conn:
                row = await (await conn.execute(statement, params)).fetchone()
            self._announcer.queued(row["queued"] if row else 0)
        except psycopg.errors.UniqueViolation as exc:
            raise _period_taken(exc, subscription) from exc
        if not row or row["written"] != 1:
            raise StaleFence(f"subscription {subscription.id}: fence {fence} is no longer current")

    @wraps_psycopg_errors
    async def get(
        self, merchant_id: str, environment: Environment, subscription_id: str
    ) -> Subscription | None:
        return await self._one(_GET, _tenant(merchant_id, environment, subscription_id))

    @wraps_psycopg_errors
    async def find(self, subscription_id: str) -> Subscription | None:
        return await self._one(_FIND, {"id": subscription_id})

    @wraps_psycopg_errors
    async def due_for_billing(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        """Without `owner`, the batch is claimed for `claim`: the same call (from this core or another)
        passes it over while the claim holds, so a batch is worked on by one core at a time and the
        run's next call takes the next batch."""
        statement = _CLAIM_DUE if owner is None else _OWNER_DUE
        async with self._pool.connection() as conn:
            return await self._jobs.due(
                conn, statement, _due_params(claim.now, limit, owner), claim, claiming=owner is None
            )

    @wraps_psycopg_errors
    async def find_by_idempotency_key(
        self, merchant_id: str, environment: Environment, key: str
    ) -> Subscription | None:
        params = {"merchant_id": merchant_id, "environment": environment.value, "key": key}
        return await self._one(_BY_KEY, params)

    @wraps_psycopg_errors
    async def list(self, query: SubscriptionQuery) -> Page[Subscription]:
        params = {
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
            "customer_id": query.customer_id,
            "status": query.status,
            "price_id": query.price_id,
            "starting_after": query.starting_after,
            "fetch": query.limit + 1,
        }
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(conn, _LIST, _COUNT, params, query.limit, optional=_OPTIONAL)
            subscriptions = await _hydrate(conn, list(page.items))
        return Page(subscriptions, page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def exists(self, merchant_id: str, environment: Environment, subscription_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_EXISTS, _tenant(merchant_id, environment, subscription_id))
            return await cursor.fetchone() is not None

    @wraps_psycopg_errors
    async def get_invoice(
        self, merchant_id: str, environment: Environment, invoice_id: str
    ) -> Invoice | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_INVOICE_GET, _tenant(merchant_id, environment, invoice_id))
            row = await cursor.fetchone()
        return invoice_from_row(row) if row else None

    @wraps_psycopg_errors
    async def list_invoices(self, query: InvoiceQuery) -> Page[Invoice]:
        params = {
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
            "subscription_id": query.subscription_id,
            "customer_id": query.customer_id,
            "status": query.status,
            "starting_after": query.starting_after,
            "fetch": query.limit + 1,
        }
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(
                conn, _INVOICE_LIST, _INVOICE_COUNT, params, query.limit, optional=_INVOICE_OPTIONAL
            )
        return Page([invoice_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def invoice_exists(self, merchant_id: str, environment: Environment, invoice_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_INVOICE_EXISTS, _tenant(merchant_id, environment, invoice_id))
            return await cursor.fetchone() is not None

    @wraps_psycopg_errors
    async def last_paid_invoice(self, subscription_id: str) -> Invoice | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_LAST_PAID, (subscription_id,))).fetchone()
        return invoice_from_row(row) if row else None

    async def _one(self, query: str, params: dict[str, Any]) -> Subscription | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(query, params)).fetchone()
            if row is None:
                return None
            return (await _hydrate(conn, [row]))[0]


async def _hydrate(
    conn: AsyncConnection[DictRow], rows: builtins.list[DictRow]
) -> builtins.list[Subscription]:
    """Attaches every item, the unbilled prorations, the invoices still owed and the notices that still
    matter: four queries for the page, sent together."""
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    # The four reads depend on nothing but `ids`: one round trip in psycopg's pipeline mode.
    async with conn.pipeline():
        reads = await _child_reads(conn, ids)
    return await _assemble(rows, reads)


async def _child_reads(conn: AsyncConnection[DictRow], ids: builtins.list[str]) -> builtins.list[Any]:
    """The four child reads of `ids`, sent (inside the caller's pipeline) and not yet fetched."""
    return [
        await conn.execute(_ITEMS, (ids,)),
        await conn.execute(_UNBILLED, (ids,)),
        await conn.execute(_OWED_INVOICES, (ids,)),
        await conn.execute(_NOTICES, {"ids": ids, "trial_kind": TRIAL_WILL_END}),
    ]


async def _assemble(rows: builtins.list[DictRow], reads: builtins.list[Any]) -> builtins.list[Subscription]:
    ids = [row["id"] for row in rows]
    environments = {row["id"]: Environment(row["environment"]) for row in rows}
    items: dict[str, builtins.list[SubscriptionItem]] = {sub_id: [] for sub_id in ids}
    prorations: dict[str, builtins.list[PendingProration]] = {sub_id: [] for sub_id in ids}
    invoices: dict[str, builtins.list[Invoice]] = {sub_id: [] for sub_id in ids}
    notices: dict[str, set[tuple[str, datetime]]] = {sub_id: set() for sub_id in ids}
    item_rows, proration_rows, invoice_rows, notice_rows = [await read.fetchall() for read in reads]
    for item_row in item_rows:
        owner = item_row["subscription_id"]
        items[owner].append(item_from_row(item_row, environments[owner]))
    for proration_row in proration_rows:
        prorations[proration_row["subscription_id"]].append(proration_from_row(proration_row))
    for invoice_row in invoice_rows:
        invoices[invoice_row["subscription_id"]].append(invoice_from_row(invoice_row))
    for notice_row in notice_rows:
        notices[notice_row["subscription_id"]].add((notice_row["kind"], notice_row["announced"]))
    return [
        subscription_from_row(
            row, items[row["id"]], prorations[row["id"]], invoices[row["id"]], notices[row["id"]]
        )
        for row in rows
    ]


def _period_taken(exc: psycopg.errors.UniqueViolation, subscription: Subscription) -> Exception:
    """The period index's violation as a storage error; any other unique violation is not ours to name."""
    if exc.diag.constraint_name == PERIOD_INVOICE_INDEX:
        return PeriodAlreadyInvoiced(f"subscription {subscription.id}: its period is invoiced already")
    return StorageError(f"subscription {subscription.id}: {exc.diag.constraint_name} refused the write")
