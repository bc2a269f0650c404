"""PgLedgerRepository: balances, lists and reconciliation over balance_transactions.

The ledger only reads: its rows are written by the statements that move the money (the kernel's
ledger_rows CTE, in the charge's and the subscription's saves). Reconciliation reads the movements'
own tables (charges, refunds, disputes, invoices) as well — a read of what another context wrote, for
an operator's proof; nothing here writes them — and runs its two proofs in one REPEATABLE READ snapshot,
so a movement committing meanwhile is either in both or in neither.

The balance is summed from the rows on every read (an index range of one merchant's environment). A
running total per currency would be cheaper for a merchant with millions of rows; then reconciliation's
first proof is the one that checks it.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import TransactionType
from core_server.kernel.storage.clock_offsets import merchant_time_join
from core_server.kernel.storage.list_pages import counted_page_sql, fetch_counted_page
from core_server.ledger.application.ports import TransactionQuery
from core_server.ledger.domain.balance import BalanceTransaction, CurrencyTotals, status_at
from core_server.ledger.domain.reconciliation import BalanceLine, Finding, FindingKind

# GET /balance: per currency the merchant has rows in, the nets of its rows available and pending at
# `now` (DESIGN §9). Only the rows no payout settled are read: a payout's settled rows, its conversion
# pair and its own −amount row are all available from its creation on and net to zero in each currency
# (the reconciliation below checks exactly that), so the sums are those of every row. Summing every row
# read a merchant's whole history on each request (up to 157 ms at 200,000 rows; BENCHMARKS.md, "Speed,
# round 9"); the currencies come from a skip scan of balance_transactions_by_currency, one probe each.
_TOTALS = """
WITH RECURSIVE currencies AS (
  (SELECT bt.currency FROM balance_transactions bt
    WHERE bt.merchant_id = %(merchant_id)s AND bt.environment = %(environment)s
    ORDER BY bt.currency LIMIT 1)
  UNION ALL
  SELECT (SELECT bt.currency FROM balance_transactions bt
           WHERE bt.merchant_id = %(merchant_id)s AND bt.environment = %(environment)s
             AND bt.currency > c.currency
           ORDER BY bt.currency LIMIT 1)
    FROM currencies c
   WHERE c.currency IS NOT NULL
)
SELECT c.currency,
       coalesce(sum(u.net) FILTER (WHERE u.available_on <= %(now)s), 0) AS available,
       coalesce(sum(u.net) FILTER (WHERE u.available_on > %(now)s), 0) AS pending
  FROM currencies c
  LEFT JOIN balance_transactions u
    ON u.merchant_id = %(merchant_id)s AND u.environment = %(environment)s AND u.currency = c.currency
   AND u.payout IS NULL
 WHERE c.currency IS NOT NULL
 GROUP BY c.currency
"""

_FILTERS = """
FROM balance_transactions
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND (%(type)s::text IS NULL OR type = %(type)s)
  AND (%(payout)s::text IS NULL OR payout = %(payout)s)
  AND (%(currency)s::text IS NULL OR currency = %(currency)s)
"""
# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("type", "payout", "currency", "cursor")
_PAGE = (
    "SELECT * "
    + _FILTERS
    + """
  AND (%(cursor)s::text IS NULL OR (created_at, seq) < (
        SELECT created_at, seq FROM balance_transactions
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY created_at DESC, seq DESC
LIMIT %(limit)s
"""
)
# The count joined to the page in one statement (kernel/storage/list_pages.py).
_LIST = counted_page_sql(
    count="SELECT count(*) AS n " + _FILTERS, page=_PAGE, order="p.created_at DESC, p.seq DESC"
)
_CURSOR_EXISTS = (
    "SELECT 1 FROM balance_transactions WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s "
    "AND environment = %(environment)s"
)

_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"

# Each merchant's balance as GET /balance splits it (TEST rows at the merchant's sandbox time), beside
# the plain sum of the rows.
_BALANCE_LINES = (
    """
SELECT bt.merchant_id, bt.environment, bt.currency,
       coalesce(sum(bt.net) FILTER (WHERE bt.available_on <= seen.at), 0) AS available,
       coalesce(sum(bt.net) FILTER (WHERE bt.available_on > seen.at), 0) AS pending,
       sum(bt.net) AS rows_net, count(*) AS row_count
  FROM balance_transactions bt
  """
    + merchant_time_join("bt.merchant_id", "bt.environment", "seen")
    + """
 GROUP BY bt.merchant_id, bt.environment, bt.currency
 ORDER BY bt.merchant_id, bt.environment, bt.currency
"""
)


def _share(value: str, part: str, whole: str) -> str:
    """SQL of kernel `share_half_up`: round_half_up(value × part / whole) in bigint arithmetic, exactly
    as the core computed it (no numeric division whose scale could round a near-half the wrong way).
    Every operand must be bigint: a numeric one (a `sum`) would make `/` a fraction, not a floor."""
    return f"((2 * {value} * ({part}) + {whole}) / (2 * {whole}))"


def _returned_tax(charge: str, before: str, amount: str) -> str:
    """SQL of kernel `returned_tax`: the tax share `amount` hands back after `before` was returned."""
    tax, captured = f"{charge}.tax_amount_cents", f"{charge}.amount_captured"
    return f"({_share(tax, f'{before} + {amount}', captured)} - {_share(tax, before, captured)})"


# Every movement recorded in its own table, with the row it must have. `fee` NULL: not compared (a paid
# invoice's fee may have been capped when booked). A refund or dispute of a charge that paid an invoice
# returns its tax share (DESIGN §10.2): a refund's, cumulatively over the charge's refunds in the order
# they were made (`seq`); a dispute's, on top of the refunds before it (captured − amount at stake) —
# so each row's tax is recomputed from the movements alone, as Charge.refund and Charge.dispute_tax did.
_FINDINGS = f"""
WITH expected AS (
  SELECT c.merchant_id, c.environment, 'charge' AS type, c.id AS source, c.amount_captured AS amount,
         c.fee_amount_cents AS fee, 0::bigint AS tax, c.currency
    FROM charges c
   WHERE c.amount_captured IS NOT NULL AND c.invoice_id IS NULL
  UNION ALL
  SELECT c.merchant_id, c.environment, 'refund', r.id, -r.amount, 0,
         -{_returned_tax("c", "r.through - r.amount", "r.amount")}, r.currency
    FROM (SELECT refunds.*, (sum(amount) OVER (PARTITION BY charge_id ORDER BY seq))::bigint AS through
            FROM refunds) r
    JOIN charges c ON c.id = r.charge_id
  UNION ALL
  SELECT c.merchant_id, c.environment, 'dispute', d.id, -d.amount, d.fee,
         -{_returned_tax("c", "c.amount_captured - d.amount", "d.amount")}, d.currency
    FROM disputes d JOIN charges c ON c.id = d.charge_id
  UNION ALL
  SELECT c.merchant_id, c.environment, 'dispute_won', d.id, d.amount, -d.fee,
         {_returned_tax("c", "c.amount_captured - d.amount", "d.amount")}, d.currency
    FROM disputes d JOIN charges c ON c.id = d.charge_id
   WHERE d.status = 'won'
  UNION ALL
  SELECT i.merchant_id, i.environment, 'subscription', i.id, charged.amount, NULL,
         CASE WHEN i.total_cents > 0 AND i.tax_cents > 0
              THEN {_share("i.tax_cents", "least(charged.amount, i.total_cents)", "i.total_cents")}
              ELSE 0 END,
         i.currency
    FROM invoices i
   CROSS JOIN LATERAL (SELECT coalesce(i.amount_due_cents, i.total_cents) AS amount) charged
   WHERE i.status = 'PAID' AND i.charge_id IS NOT NULL
  UNION ALL
  SELECT p.merchant_id, p.environment, 'payout', p.id, -p.amount, 0, 0, p.currency
    FROM payouts p
  UNION ALL
  SELECT p.merchant_id, p.environment, 'payout_failure', p.id, p.amount, 0, 0, p.currency
    FROM payouts p
   WHERE p.status = 'failed'
),
matched AS (
  SELECT e.*, bt.id AS txn_id, bt.merchant_id AS txn_merchant_id, bt.environment AS txn_environment,
         bt.amount AS txn_amount, bt.fee AS txn_fee, bt.tax AS txn_tax, bt.currency AS txn_currency
    FROM expected e
    LEFT JOIN balance_transactions bt ON bt.type = e.type AND bt.source = e.source
)
SELECT 'missing_row' AS kind, merchant_id, environment, currency, source,
       'no ' || type || ' balance transaction' AS detail
  FROM matched WHERE txn_id IS NULL
UNION ALL
SELECT 'amount_mismatch', merchant_id, environment, currency, source,
       type || ' ' || txn_id || ': amount ' || txn_amount || ' fee ' || txn_fee || ' tax ' || txn_tax || ' '
       || txn_currency || ' ≠ amount ' || amount || coalesce(' fee ' || fee, '') || ' tax ' || tax || ' '
       || currency
  FROM matched
 WHERE txn_id IS NOT NULL
   AND (txn_amount <> amount OR txn_fee <> coalesce(fee, txn_fee) OR txn_tax <> tax
        OR txn_currency <> currency OR txn_merchant_id <> merchant_id OR txn_environment <> environment)
UNION ALL
SELECT 'orphan_row', bt.merchant_id, bt.environment, bt.currency, bt.id,
       bt.type || ' row for ' || bt.source || ', which is no such movement'
  FROM balance_transactions bt
 WHERE bt.type IN ('charge', 'refund', 'dispute', 'dispute_won', 'subscription', 'payout', 'payout_failure')
   AND NOT EXISTS (SELECT 1 FROM expected e WHERE e.type = bt.type AND e.source = bt.source)
UNION ALL
SELECT 'amount_mismatch', p.merchant_id, p.environment, p.currency, p.id,
       'payout of ' || p.amount || ' settles rows of ' || s.net || ' in its currency, '
       || s.unconverted || ' other currencies not converted out whole, ' || s.foreign
       || ' rows of another merchant or environment'
  FROM payouts p
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(c.net) FILTER (WHERE c.currency = p.currency), 0) AS net,
           count(*) FILTER (WHERE c.currency <> p.currency AND c.net <> 0) AS unconverted,
           coalesce(sum(c.foreign), 0) AS foreign
      FROM (SELECT bt.currency, sum(bt.net) AS net,
                   count(*) FILTER (WHERE bt.merchant_id <> p.merchant_id
                                          OR bt.environment <> p.environment) AS foreign
              FROM balance_transactions bt
             WHERE bt.payout = p.id AND bt.type <> 'payout'
             GROUP BY bt.currency) c
  ) s
 WHERE s.net <> p.amount OR s.unconverted > 0 OR s.foreign > 0
UNION ALL
SELECT 'orphan_row', bt.merchant_id, bt.environment, bt.currency, bt.id,
       'conversion row for ' || bt.source || ', which is no payout of its merchant settling it'
  FROM balance_transactions bt
 WHERE bt.type = 'conversion'
   AND NOT EXISTS (SELECT 1 FROM payouts p
                    WHERE p.id = bt.source AND p.merchant_id = bt.merchant_id
                      AND p.environment = bt.environment AND bt.payout = p.id)
UNION ALL
SELECT 'row_does_not_add_up', merchant_id, environment, currency, id,
       'net ' || net || ' ≠ amount ' || amount || ' − fee ' || fee || ' − tax ' || tax
  FROM balance_transactions
 WHERE net <> amount - fee - tax
UNION ALL
SELECT 'credit_mismatch', b.merchant_id, b.environment, b.currency, b.customer_id,
       'customer balance ' || b.balance_cents || ' ≠ the sum of its transactions ' || coalesce(t.sum, 0)
  FROM customer_balances b
  LEFT JOIN LATERAL (SELECT sum(amount_cents)::bigint AS sum FROM customer_balance_transactions
                      WHERE customer_id = b.customer_id AND currency = b.currency) t ON true
 WHERE b.balance_cents <> coalesce(t.sum, 0)
UNION ALL
SELECT 'credit_mismatch', t.merchant_id, t.environment, t.currency, t.id,
       'ending balance ' || t.ending_balance_cents || ' ≠ the running sum ' || t.running
  FROM (SELECT cbt.*, (sum(amount_cents) OVER (PARTITION BY customer_id, currency ORDER BY seq))::bigint
                      AS running
          FROM customer_balance_transactions cbt) t
 WHERE t.ending_balance_cents <> t.running
UNION ALL
SELECT 'credit_mismatch', i.merchant_id, i.environment, i.currency, i.id,
       'credit applied ' || coalesce(i.credit_applied_cents, 0) || ', total ' || i.total_cents || ', due '
       || coalesce(i.amount_due_cents::text, 'unset') || ' ≠ its balance transactions: applied '
       || moved.applied || ', credited ' || moved.credited
  FROM invoices i
 CROSS JOIN LATERAL (
   SELECT coalesce(-sum(amount_cents) FILTER (WHERE type = 'applied_to_invoice'), 0)::bigint AS applied,
          coalesce(sum(amount_cents) FILTER (WHERE type = 'invoice_credit'), 0)::bigint AS credited
     FROM customer_balance_transactions WHERE invoice_id = i.id) moved
 WHERE i.amount_due_cents IS NOT NULL
   AND (moved.applied <> coalesce(i.credit_applied_cents, 0)
        OR i.amount_due_cents <> greatest(i.total_cents, 0) - coalesce(i.credit_applied_cents, 0)
        OR moved.credited <> CASE WHEN i.status = 'VOID' THEN coalesce(i.credit_applied_cents, 0)
                                  ELSE greatest(-i.total_cents, 0) END)
ORDER BY 2, 3, 4, 5
LIMIT %(limit)s
"""
FINDINGS_LIMIT = 1000
"""A broken ledger can have a finding per row; the first thousand say enough."""


def _scope(merchant_id: str, environment: Environment) -> dict[str, Any]:
    return {"merchant_id": merchant_id, "environment": environment.value}


def _transaction(row: dict[str, Any], now: datetime) -> BalanceTransaction:
    return BalanceTransaction(
        id=row["id"],
        type=TransactionType(row["type"]),
        source=row["source"],
        amount=row["amount"],
        fee=row["fee"],
        tax=row["tax"],
        net=row["net"],
        currency=row["currency"],
        available_on=row["available_on"],
        created=row["created_at"],
        status=status_at(row["available_on"], now),
        payout=row["payout"],
        mid_market_rate=row["mid_market_rate"],
        exchange_rate=row["exchange_rate"],
    )


class PgLedgerRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def totals(
        self, merchant_id: str, environment: Environment, now: datetime
    ) -> builtins.list[CurrencyTotals]:
        async with self._pool.connection() as conn:
            rows = await (
                await conn.execute(_TOTALS, {**_scope(merchant_id, environment), "now": now})
            ).fetchall()
        return [CurrencyTotals(row["currency"], int(row["available"]), int(row["pending"])) for row in rows]

    @wraps_psycopg_errors
    async def list(self, query: TransactionQuery) -> Page[BalanceTransaction]:
        params = {
            **_scope(query.merchant_id, query.environment),
            "type": query.type.value if query.type else None,
            "payout": query.payout,
            "currency": query.currency,
            "cursor": query.starting_after,
            "limit": query.limit + 1,
        }
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_counted_page(conn, _LIST, params, query.limit, optional=_OPTIONAL)
        return Page([_transaction(row, query.now) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def cursor_exists(self, merchant_id: str, environment: Environment, transaction_id: str) -> bool:
        params = {**_scope(merchant_id, environment), "cursor": transaction_id}
        async with self._pool.connection() as conn:
            return await (await conn.execute(_CURSOR_EXISTS, params)).fetchone() is not None

    @wraps_psycopg_errors
    async def reconcile(self, now: datetime) -> tuple[Sequence[BalanceLine], Sequence[Finding]]:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(_SNAPSHOT)
            line_rows = await (await conn.execute(_BALANCE_LINES, {"now": now})).fetchall()
            finding_rows = await (await conn.execute(_FINDINGS, {"limit": FINDINGS_LIMIT})).fetchall()
        lines = [
            BalanceLine(
                merchant_id=row["merchant_id"],
                environment=row["environment"],
                currency=row["currency"],
                available=int(row["available"]),
                pending=int(row["pending"]),
                rows_net=int(row["rows_net"]),
                row_count=int(row["row_count"]),
            )
            for row in line_rows
        ]
        findings = [
            Finding(
                kind=FindingKind(row["kind"]),
                merchant_id=row["merchant_id"],
                environment=row["environment"],
                currency=row["currency"],
                source=row["source"],
                detail=row["detail"],
            )
            for row in finding_rows
        ]
        return lines, findings
