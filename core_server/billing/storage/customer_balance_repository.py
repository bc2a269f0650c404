"""PgCustomerBalances: the customer credit balance and its transactions (DESIGN §10.1).

Every change of a balance runs in one transaction that holds the balance's row lock, so two invoices of
one customer (two subscriptions, two cores) never spend the same credit, and writes the balance and its
transaction together, so the balance is always the sum of its transactions. An invoice's settlement is
written once: its transactions are unique per (invoice, type), and a settlement retried after a crash
reads what the first one wrote instead of applying the balance again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection

from core_server.billing.domain.credit_balance import (
    BALANCE_TRANSACTION_ID_PREFIX,
    BalanceMove,
    BalanceTransactionType,
    CustomerBalanceTransaction,
    InvoiceSettlement,
    check_adjustment,
    settle_invoice,
)
from core_server.billing.domain.invoice import Invoice
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import new_id
from core_server.kernel.storage.idempotency_store import complete_in_transaction
from core_server.kernel.storage.list_pages import fetch_page_and_count

_ENSURE = """
INSERT INTO customer_balances (customer_id, currency, merchant_id, environment, balance_cents)
VALUES (%(customer_id)s, %(currency)s, %(merchant_id)s, %(environment)s, 0)
ON CONFLICT (customer_id, currency) DO NOTHING"""
_LOCK = "SELECT balance_cents FROM customer_balances WHERE customer_id = %s AND currency = %s FOR UPDATE"
_SET = "UPDATE customer_balances SET balance_cents = %s WHERE customer_id = %s AND currency = %s"
_OF_INVOICE = "SELECT type, amount_cents FROM customer_balance_transactions WHERE invoice_id = %s"
# settle()'s look before it locks: the balance as committed (no row: 0) and whether the invoice was settled.
_PEEK = """
SELECT (SELECT balance_cents FROM customer_balances WHERE customer_id = %(customer_id)s
         AND currency = %(currency)s) AS balance_cents,
       EXISTS (SELECT 1 FROM customer_balance_transactions WHERE invoice_id = %(invoice_id)s) AS settled"""
_INSERT = """
INSERT INTO customer_balance_transactions (
  id, merchant_id, environment, customer_id, type, amount_cents, currency, invoice_id, description,
  ending_balance_cents, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(customer_id)s, %(type)s, %(amount_cents)s, %(currency)s,
        %(invoice_id)s, %(description)s, %(ending_balance_cents)s, %(created_at)s)"""
_TENANT = " WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
_FILTERS = " FROM customer_balance_transactions" + _TENANT + " AND customer_id = %(customer_id)s"
_LIST = (
    "SELECT *"
    + _FILTERS
    + " AND (%(starting_after)s::text IS NULL"
    + " OR seq < (SELECT seq FROM customer_balance_transactions WHERE id = %(starting_after)s::text))"
    + " ORDER BY seq DESC LIMIT %(fetch)s"
)
_COUNT = "SELECT count(*) AS n" + _FILTERS
_EXISTS = "SELECT 1" + _FILTERS + " AND id = %(id)s"
_BALANCE = "SELECT balance_cents FROM customer_balances WHERE customer_id = %s AND currency = %s"

_DESCRIPTIONS = {
    BalanceTransactionType.INVOICE_CREDIT: "Credit from invoice {invoice}",
    BalanceTransactionType.APPLIED_TO_INVOICE: "Applied to invoice {invoice}",
    BalanceTransactionType.CARRIED_AMOUNT: "Carried from invoice {invoice} (below the smallest charge)",
}


def transaction_from_row(row: dict[str, Any]) -> CustomerBalanceTransaction:
    return CustomerBalanceTransaction(
        id=row["id"],
        merchant_id=row["merchant_id"],
        livemode=Environment(row["environment"]).livemode,
        customer_id=row["customer_id"],
        type=BalanceTransactionType(row["type"]),
        amount_cents=row["amount_cents"],
        currency=row["currency"],
        invoice_id=row["invoice_id"],
        description=row["description"],
        ending_balance_cents=row["ending_balance_cents"],
        created=row["created_at"],
    )


def _replayed(invoice: Invoice, rows: Sequence[dict[str, Any]]) -> InvoiceSettlement:
    """The settlement an earlier run of `settle` wrote for the invoice, read back from its rows."""
    moves = tuple(BalanceMove(BalanceTransactionType(r["type"]), r["amount_cents"]) for r in rows)
    if invoice.total_cents <= 0:
        return InvoiceSettlement(0, 0, 0, moves)
    applied = -sum(m.amount_cents for m in moves if m.type is BalanceTransactionType.APPLIED_TO_INVOICE)
    due = invoice.total_cents - applied
    carried = any(m.type is BalanceTransactionType.CARRIED_AMOUNT for m in moves)
    return InvoiceSettlement(applied, due, 0 if carried else due, moves)


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("starting_after",)


class PgCustomerBalances:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def settle(self, invoice: Invoice, at: datetime) -> InvoiceSettlement:
        """Applies the customer's balance to an opened invoice (or credits a total ≤ 0), once.

        Most invoices move nothing (no credit, a total above the smallest charge): one read tells, and
        nothing is locked or written. That read is as good as the lock: a settlement that moves nothing
        may be ordered before any balance change committed after it. Anything else — a move, or an
        invoice already settled (its settlement is replayed) — takes the balance's row lock.
        """
        async with self._pool.connection() as conn:
            peek = await (
                await conn.execute(
                    _PEEK,
                    {
                        "customer_id": invoice.customer_id,
                        "currency": invoice.currency,
                        "invoice_id": invoice.id,
                    },
                )
            ).fetchone()
            if peek is not None and not peek["settled"]:
                settlement = settle_invoice(int(peek["balance_cents"] or 0), invoice.total_cents)
                if not settlement.moves:
                    return settlement
            return await self._settle_locked(conn, invoice, at)

    @staticmethod
    async def _settle_locked(conn: AsyncConnection[Any], invoice: Invoice, at: datetime) -> InvoiceSettlement:
        async with conn.transaction():
            balance = await PgCustomerBalances._lock(
                conn, invoice.merchant_id, invoice.environment, invoice.customer_id, invoice.currency
            )
            rows = await (await conn.execute(_OF_INVOICE, (invoice.id,))).fetchall()
            if rows:
                return _replayed(invoice, rows)
            settlement = settle_invoice(balance, invoice.total_cents)
            for move in settlement.moves:
                balance += move.amount_cents
                description = _DESCRIPTIONS[move.type].format(invoice=invoice.id)
                await PgCustomerBalances._insert(
                    conn,
                    invoice.merchant_id,
                    invoice.environment,
                    invoice.customer_id,
                    move,
                    invoice.currency,
                    invoice.id,
                    description,
                    balance,
                    at,
                )
            if settlement.moves:
                await conn.execute(_SET, (balance, invoice.customer_id, invoice.currency))
            return settlement

    @wraps_psycopg_errors
    async def restore(self, invoice: Invoice, at: datetime) -> None:
        """A voided invoice gives back the balance it took (a credit, or a carried amount), once."""
        applied = invoice.credit_applied_cents or 0
        if applied == 0:
            return
        async with self._pool.connection() as conn, conn.transaction():
            balance = await self._lock(
                conn, invoice.merchant_id, invoice.environment, invoice.customer_id, invoice.currency
            )
            rows = await (await conn.execute(_OF_INVOICE, (invoice.id,))).fetchall()
            if any(row["type"] == BalanceTransactionType.INVOICE_CREDIT.value for row in rows):
                return
            move = BalanceMove(BalanceTransactionType.INVOICE_CREDIT, applied)
            await self._insert(
                conn,
                invoice.merchant_id,
                invoice.environment,
                invoice.customer_id,
                move,
                invoice.currency,
                invoice.id,
                f"Returned from voided invoice {invoice.id}",
                balance + applied,
                at,
            )
            await conn.execute(_SET, (balance + applied, invoice.customer_id, invoice.currency))

    @wraps_psycopg_errors
    async def adjust(
        self,
        owner: Owner,
        customer_id: str,
        amount_cents: int,
        currency: str,
        description: str | None,
        at: datetime,
        completion_of: Callable[[CustomerBalanceTransaction], IdempotencyCompletion] | None,
    ) -> CustomerBalanceTransaction:
        """A merchant's adjustment, checked against the locked balance (never below 0); the idempotent
        answer (`completion_of(transaction)`) commits with it."""
        async with self._pool.connection() as conn, conn.transaction():
            balance = await self._lock(conn, owner.merchant_id, owner.environment, customer_id, currency)
            amount = check_adjustment(amount_cents, balance)
            move = BalanceMove(BalanceTransactionType.ADJUSTMENT, amount)
            created = await self._insert(
                conn,
                owner.merchant_id,
                owner.environment,
                customer_id,
                move,
                currency,
                None,
                description,
                balance + amount,
                at,
            )
            await conn.execute(_SET, (balance + amount, customer_id, currency))
            if completion_of is not None:
                await complete_in_transaction(conn, completion_of(created))
            return created

    @wraps_psycopg_errors
    async def list(
        self, owner: Owner, customer_id: str, *, limit: int, starting_after: str | None
    ) -> Page[CustomerBalanceTransaction]:
        params = {
            "merchant_id": owner.merchant_id,
            "environment": owner.environment.value,
            "customer_id": customer_id,
            "starting_after": starting_after,
            "fetch": limit + 1,
        }
        async with gate_for(self._pool).slot(owner.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(conn, _LIST, _COUNT, params, limit, optional=_OPTIONAL)
        return Page([transaction_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def exists(self, owner: Owner, customer_id: str, transaction_id: str) -> bool:
        params = {
            "merchant_id": owner.merchant_id,
            "environment": owner.environment.value,
            "customer_id": customer_id,
            "id": transaction_id,
        }
        async with self._pool.connection() as conn:
            return await (await conn.execute(_EXISTS, params)).fetchone() is not None

    @staticmethod
    async def _lock(
        conn: AsyncConnection[Any],
        merchant_id: str,
        environment: Environment,
        customer_id: str,
        currency: str,
    ) -> int:
        await conn.execute(
            _ENSURE,
            {
                "customer_id": customer_id,
                "currency": currency,
                "merchant_id": merchant_id,
                "environment": environment.value,
            },
        )
        row = await (await conn.execute(_LOCK, (customer_id, currency))).fetchone()
        assert row is not None
        return int(row["balance_cents"])

    @staticmethod
    async def _insert(
        conn: AsyncConnection[Any],
        merchant_id: str,
        environment: Environment,
        customer_id: str,
        move: BalanceMove,
        currency: str,
        invoice_id: str | None,
        description: str | None,
        ending_balance: int,
        at: datetime,
    ) -> CustomerBalanceTransaction:
        transaction = CustomerBalanceTransaction(
            id=new_id(BALANCE_TRANSACTION_ID_PREFIX, 24),
            merchant_id=merchant_id,
            livemode=environment.livemode,
            customer_id=customer_id,
            type=move.type,
            amount_cents=move.amount_cents,
            currency=currency,
            invoice_id=invoice_id,
            description=description,
            ending_balance_cents=ending_balance,
            created=at.replace(microsecond=0),
        )
        await conn.execute(
            _INSERT,
            {
                "id": transaction.id,
                "merchant_id": merchant_id,
                "environment": environment.value,
                "customer_id": customer_id,
                "type": move.type.value,
                "amount_cents": move.amount_cents,
                "currency": currency,
                "invoice_id": invoice_id,
                "description": description,
                "ending_balance_cents": ending_balance,
                "created_at": transaction.created,
            },
        )
        return transaction
