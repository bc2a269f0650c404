"""PgChargeRepository: charges with their refunds, dispute, outbox events and fenced writes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from core_server.application.ports import ChargePage, ChargeQuery, IdempotencyCompletion
from core_server.domain.charge import AUTHORIZATION_HOLD, Charge
from core_server.domain.dispute import Dispute
from core_server.domain.refund import Refund
from core_server.storage.charge_rows import (
    charge_from_row,
    charge_params,
    dispute_from_row,
    refund_from_row,
)
from core_server.storage.errors import IdCollision, StaleFence, wraps_psycopg_errors
from core_server.storage.idempotency_store import complete_in_transaction
from core_server.storage.outbox import write_charge_events

_COLUMNS = [
    "id", "merchant_id", "environment", "amount", "currency", "status", "description", "metadata",
    "return_url", "cancel_url", "customer_email", "idempotency_key", "payment_method", "payment_details",
    "transaction_id", "failure_code", "authorized_at", "authorization_due_at", "amount_captured", "fee_amount_cents",
    "net_amount_cents", "captured_at", "amount_refunded", "refunded_at", "voided_at", "disputed_at",
    "expires_at", "created_at",
]
_MUTABLE = [c for c in _COLUMNS if c not in {"id", "merchant_id", "environment", "amount", "currency",
                                              "return_url", "cancel_url", "created_at", "idempotency_key"}]

_INSERT_CHARGE = (
    f"INSERT INTO charges ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join(f'%({c})s' for c in _COLUMNS)})"
)
_FENCED_UPDATE = (
    f"UPDATE charges SET {', '.join(f'{c} = %({c})s' for c in _MUTABLE)}, "
    "version = version + 1, updated_at = now() "
    "WHERE id = %(id)s AND fence_token = %(fence)s"
)
_ACTIVATE = "UPDATE charges SET fence_token = fence_token + 1 WHERE id = %s RETURNING *"
_SELECT_CHARGE = "SELECT * FROM charges WHERE id = %s"
_SELECT_REFUNDS = "SELECT * FROM refunds WHERE charge_id = ANY(%s) ORDER BY seq"
_DISPUTE_CHARGE = "SELECT charge_id FROM disputes WHERE id = %s"
_SELECT_DISPUTES = "SELECT * FROM disputes WHERE charge_id = ANY(%s)"
_INSERT_REFUND = """
INSERT INTO refunds (id, charge_id, amount, currency, status, reason, created_at)
VALUES (%(id)s, %(charge_id)s, %(amount)s, %(currency)s, %(status)s, %(reason)s, %(created_at)s)
ON CONFLICT (id) DO NOTHING
"""
_UPSERT_DISPUTE = """
INSERT INTO disputes (id, charge_id, amount, currency, status, fee, prior_status, created_at)
VALUES (%(id)s, %(charge_id)s, %(amount)s, %(currency)s, %(status)s, %(fee)s, %(prior_status)s, %(created_at)s)
ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status
"""
_FILTERS = """
FROM charges
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND (%(status)s::text IS NULL OR status = %(status)s)
  AND (%(created_after)s::timestamptz IS NULL OR created_at > %(created_after)s)
  AND (%(created_before)s::timestamptz IS NULL OR created_at < %(created_before)s)
"""
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
_CURSOR_EXISTS = (
    "SELECT 1 FROM charges WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s "
    "AND environment = %(environment)s"
)
_DUE_AUTHORIZATIONS = """
SELECT id FROM charges
WHERE status = 'pending' AND authorization_due_at <= %(now)s
ORDER BY authorization_due_at LIMIT %(limit)s
"""
_DUE_FOR_EXPIRY = """
(SELECT id FROM charges WHERE status = 'pending' AND expires_at <= %(now)s ORDER BY expires_at LIMIT %(limit)s)
UNION ALL
(SELECT id FROM charges WHERE status = 'authorized' AND authorized_at <= %(hold_start)s
 ORDER BY authorized_at LIMIT %(limit)s)
"""


def _refund_params(refund: Refund) -> dict[str, Any]:
    return {
        "id": refund.id,
        "charge_id": refund.charge_id,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status,
        "reason": refund.reason,
        "created_at": refund.created,
    }


def _dispute_params(dispute: Dispute) -> dict[str, Any]:
    return {
        "id": dispute.id,
        "charge_id": dispute.charge_id,
        "amount": dispute.amount,
        "currency": dispute.currency,
        "status": dispute.status,
        "fee": dispute.fee,
        "prior_status": dispute.prior_status,
        "created_at": dispute.created,
    }


class PgChargeRepository:
    def __init__(self, pool: AsyncConnectionPool, checkout_base_url: str) -> None:
        self._pool = pool
        self._checkout_base_url = checkout_base_url

    @wraps_psycopg_errors
    async def insert_new(self, charge: Charge, completion: IdempotencyCompletion | None) -> None:
        try:
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute(_INSERT_CHARGE, charge_params(charge))
                await write_charge_events(conn, charge, self._checkout_base_url)
                if completion is not None:
                    await complete_in_transaction(conn, completion)
        except psycopg.errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "charges_pkey":
                raise IdCollision(charge.id) from exc
            raise
        charge.pending_events.clear()

    @wraps_psycopg_errors
    async def load_for_activation(self, charge_id: str) -> tuple[Charge, int] | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_ACTIVATE, (charge_id,))).fetchone()
            if row is None:
                return None
            charge = (await self._hydrate(conn, [row]))[0]
            return charge, row["fence_token"]

    @wraps_psycopg_errors
    async def save(self, charge: Charge, fence: int, completion: IdempotencyCompletion | None) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            cursor = await conn.execute(_FENCED_UPDATE, {**charge_params(charge), "fence": fence})
            if cursor.rowcount != 1:
                raise StaleFence(f"charge {charge.id}: fence {fence} is no longer current")
            if charge.refunds:
                async with conn.cursor() as cur:
                    await cur.executemany(_INSERT_REFUND, [_refund_params(r) for r in charge.refunds])
            if charge.dispute is not None:
                await conn.execute(_UPSERT_DISPUTE, _dispute_params(charge.dispute))
            await write_charge_events(conn, charge, self._checkout_base_url)
            if completion is not None:
                await complete_in_transaction(conn, completion)
        charge.pending_events.clear()

    @wraps_psycopg_errors
    async def get(self, charge_id: str) -> Charge | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SELECT_CHARGE, (charge_id,))).fetchone()
            if row is None:
                return None
            return (await self._hydrate(conn, [row]))[0]

    @wraps_psycopg_errors
    async def list(self, query: ChargeQuery) -> ChargePage:
        params = {
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
            "status": query.status.value if query.status else None,
            "created_after": query.created_after,
            "created_before": query.created_before,
            "cursor": query.starting_after,
            "limit": query.limit + 1,
        }
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_PAGE, params)).fetchall()
            count_row = await (await conn.execute(_COUNT, params)).fetchone()
            page_rows = rows[: query.limit]
            charges = await self._hydrate(conn, page_rows)
        total = count_row["n"] if count_row else 0
        return ChargePage(charges=charges, has_more=len(rows) > query.limit, total_count=total)

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
    async def due_for_expiry(self, now: datetime, limit: int) -> list[str]:
        params = {"now": now, "hold_start": now - AUTHORIZATION_HOLD, "limit": limit}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_DUE_FOR_EXPIRY, params)).fetchall()
        return [row["id"] for row in rows]

    @wraps_psycopg_errors
    async def due_authorizations(self, now: datetime, limit: int) -> list[str]:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_DUE_AUTHORIZATIONS, {"now": now, "limit": limit})).fetchall()
        return [row["id"] for row in rows]

    @wraps_psycopg_errors
    async def charge_id_for_dispute(self, dispute_id: str) -> str | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_DISPUTE_CHARGE, (dispute_id,))).fetchone()
        return row["charge_id"] if row else None

    async def _hydrate(self, conn: AsyncConnection[Any], rows: list[dict[str, Any]]) -> list[Charge]:
        """Attaches refunds (oldest first) and disputes with two queries for the whole page."""
        if not rows:
            return []
        ids = [row["id"] for row in rows]
        refunds: dict[str, list[Refund]] = {charge_id: [] for charge_id in ids}
        disputes: dict[str, Dispute] = {}
        if any(row["amount_refunded"] for row in rows):
            for refund_row in await (await conn.execute(_SELECT_REFUNDS, (ids,))).fetchall():
                refunds[refund_row["charge_id"]].append(refund_from_row(refund_row))
        if any(row["disputed_at"] is not None for row in rows):
            for dispute_row in await (await conn.execute(_SELECT_DISPUTES, (ids,))).fetchall():
                disputes[dispute_row["charge_id"]] = dispute_from_row(dispute_row)
        return [charge_from_row(row, refunds[row["id"]], disputes.get(row["id"])) for row in rows]
