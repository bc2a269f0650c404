"""PgPayoutRepository: the payout run's due query and claims, a payout's creation and its arrival — each
one statement with its balance rows and its events — and the payouts' reads.

Exactly once, even with several cores: a payout is unique per (merchant, environment, currency, schedule
day), and its creation locks the rows it settles `FOR UPDATE SKIP LOCKED` and writes only if it got all
of them, still unsettled, adding up (per currency) to what it planned — a run working from a stale read
(another core settled a row meanwhile, or holds it now) writes nothing and the next pass plans again.
An arrival is fenced by `status = 'pending'`: a second one finds nothing to change and writes no second
failure row or event.

Payout, payout-failure and conversion rows are the ledger's own (available at once, unlike a movement's
row, which waits two days), so their insert is here rather than in kernel/storage/ledger_rows.py. A
conversion's pair of rows is settled by its payout at once (their `payout` is set): the source currency's
row takes the converted balance out, the payout currency's row brings it into the payout's amount.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.clock_offsets import merchant_time_join
from core_server.kernel.storage.job_claims import PgJobClaims, unclaimed
from core_server.kernel.storage.list_pages import counted_page_sql, fetch_counted_page
from core_server.kernel.storage.outbox import NOTIFY_COLUMN, OUTBOX_CTES, event_params
from core_server.ledger.application.payout_ports import PayoutQuery, PayoutSettings
from core_server.ledger.domain.payout import MINIMUMS, Payout, PayoutPlan, PayoutStatus, Settleable
from core_server.security.payout_account import PayoutAccountBox

_TXN_ID = """'txn_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
                                     'base64'), '+/=', 'pQz'), 24)"""

# The latest schedule day at or before the merchant's date (domain/payout.py schedule_day, in SQL).
_DAY = """CASE mer.payout_schedule
      WHEN 'weekly' THEN (seen.at AT TIME ZONE 'UTC')::date
                         - (extract(isodow FROM seen.at AT TIME ZONE 'UTC')::int - 1)
      WHEN 'monthly' THEN date_trunc('month', seen.at AT TIME ZONE 'UTC')::date
      ELSE (seen.at AT TIME ZONE 'UTC')::date END"""

# The periodic run: merchant environments with an arrival due, or a currency whose unsettled rows
# available at the schedule day's midnight reach the minimum and have no payout for that day yet —
# those no other core holds a claim on (`merchant_id/environment`, the job's entity), claimed by
# PgJobClaims.due in the same statement. Candidates come from real time (offsets are never negative)
# plus every merchant with a sandbox clock.
_CLAIM_DUE = (
    """
WITH minimums AS (
  SELECT * FROM unnest(%(min_currencies)s::text[], %(min_amounts)s::bigint[]) AS m(currency, minimum)
),
pairs AS (
  SELECT DISTINCT merchant_id, environment FROM balance_transactions
   WHERE payout IS NULL AND available_on <= %(now)s
  UNION SELECT merchant_id, environment FROM payouts WHERE status = 'pending' AND arrival_date <= %(now)s
  UNION SELECT merchant_id, 'test' FROM test_clocks
),
days AS (
  SELECT p.merchant_id, p.environment, seen.at, """
    + _DAY
    + """ AS day
    FROM pairs p
    JOIN merchants mer ON mer.id = p.merchant_id
    """
    + merchant_time_join("p.merchant_id", "p.environment", "seen")
    + """
),
due AS (
  SELECT d.merchant_id, d.environment FROM days d
   WHERE """
    + unclaimed("(d.merchant_id || '/' || d.environment)")
    + """
     AND (EXISTS (SELECT 1 FROM payouts po
                   WHERE po.merchant_id = d.merchant_id AND po.environment = d.environment
                     AND po.status = 'pending' AND po.arrival_date <= d.at)
          OR EXISTS (SELECT 1 FROM balance_transactions bt JOIN minimums mn ON mn.currency = bt.currency
                      WHERE bt.merchant_id = d.merchant_id AND bt.environment = d.environment
                        AND bt.payout IS NULL AND bt.available_on <= (d.day::timestamp AT TIME ZONE 'UTC')
                        AND NOT EXISTS (SELECT 1 FROM payouts po
                                         WHERE po.merchant_id = d.merchant_id
                                           AND po.environment = d.environment
                                           AND po.currency = bt.currency AND po.payout_date = d.day)
                      GROUP BY bt.currency, mn.minimum
                     HAVING sum(bt.net) >= mn.minimum))
   ORDER BY d.merchant_id, d.environment
   LIMIT %(limit)s
)
SELECT merchant_id || '/' || environment AS id FROM due
"""
)

_SETTINGS = """
SELECT payout_schedule, payout_account_number, payout_account_sealed, payout_account_key_id,
       settlement_currency
  FROM merchants WHERE id = %s
"""
_RATES = "SELECT currency, per_usd FROM fx_rates WHERE environment = %s"

_UNSETTLED = """
SELECT id, net, currency, available_on FROM balance_transactions
 WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s AND payout IS NULL
   AND available_on <= %(cutoff)s
 ORDER BY currency, available_on, seq
"""

# One payout, its settled rows, its conversions' pairs, its −amount row and payout.created, or nothing at
# all (see the module docstring: the rows must all be locked here and unsettled).
_CREATE = (
    """
WITH claimed AS (
  SELECT id, currency, net FROM balance_transactions
   WHERE id = ANY(%(txn_ids)s::text[]) AND merchant_id = %(merchant_id)s AND environment = %(environment)s
     AND payout IS NULL
   FOR UPDATE SKIP LOCKED
),
-- Every listed row held, still unsettled, with the nets per currency the plan added up.
fresh AS (
  SELECT 1 WHERE (SELECT count(*) FROM claimed) = %(txn_count)s
             AND NOT EXISTS (
               SELECT 1 FROM (SELECT currency, sum(net) AS net FROM claimed GROUP BY currency) got
               FULL JOIN unnest(%(net_currencies)s::text[], %(net_amounts)s::bigint[]) AS e(currency, net)
                 USING (currency)
                WHERE got.net IS DISTINCT FROM e.net)
),
written_row AS (
  INSERT INTO payouts (id, merchant_id, environment, amount, currency, status, payout_date, arrival_date,
                       created_at)
  SELECT %(id)s, %(merchant_id)s, %(environment)s, %(amount)s, %(currency)s, 'pending', %(payout_date)s,
         %(arrival_date)s, %(created)s
    FROM fresh
  ON CONFLICT (merchant_id, environment, currency, payout_date) DO NOTHING
  RETURNING id
),
settled AS (
  UPDATE balance_transactions bt SET payout = w.id
    FROM written_row w
   WHERE bt.id IN (SELECT id FROM claimed)
  RETURNING 1
),
payout_row AS (
  INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                    currency, available_on, payout, created_at)
  SELECT """
    + _TXN_ID
    + """, %(merchant_id)s, %(environment)s, 'payout', w.id, -%(amount)s::bigint, 0, 0,
         -%(amount)s::bigint, %(currency)s, %(created)s, w.id, %(created)s
    FROM written_row w
  RETURNING 1
),
conversion_rows AS (
  INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                    currency, available_on, payout, created_at, mid_market_rate,
                                    exchange_rate)
  SELECT """
    + _TXN_ID
    + """, %(merchant_id)s, %(environment)s, 'conversion', w.id, c.amount, 0, 0, c.amount,
         c.currency, %(created)s, w.id, %(created)s, c.mid, c.applied
    FROM written_row w,
         unnest(%(conv_currencies)s::text[], %(conv_amounts)s::bigint[], %(conv_mid)s::numeric[],
                %(conv_applied)s::numeric[]) AS c(currency, amount, mid, applied)
  RETURNING 1
),"""
    + OUTBOX_CTES
    + """
SELECT (SELECT count(*) FROM written_row) AS written, """
    + NOTIFY_COLUMN
)

_ARRIVED = """
SELECT * FROM payouts
 WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s AND status = 'pending'
   AND arrival_date <= %(now)s
 ORDER BY arrival_date, seq
"""

# The arrival, fenced by `pending`; a failure returns the funds with a `payout_failure` row (available at
# once, settled by a later payout).
_ARRIVE = (
    """
WITH written_row AS (
  UPDATE payouts SET status = %(status)s, failure_code = %(failure_code)s
   WHERE id = %(id)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
     AND status = 'pending'
  RETURNING id, amount, currency, arrival_date
),
failure_row AS (
  INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                    currency, available_on, created_at)
  SELECT """
    + _TXN_ID
    + """, %(merchant_id)s, %(environment)s, 'payout_failure', w.id, w.amount, 0, 0, w.amount,
         w.currency, w.arrival_date, w.arrival_date
    FROM written_row w
   WHERE %(failed)s
  ON CONFLICT (type, source) WHERE type <> 'conversion' DO NOTHING
  RETURNING 1
),"""
    + OUTBOX_CTES
    + """
SELECT (SELECT count(*) FROM written_row) AS written, """
    + NOTIFY_COLUMN
)

_GET = (
    "SELECT * FROM payouts WHERE id = %(id)s AND merchant_id = %(merchant_id)s "
    "AND environment = %(environment)s"
)

_FILTERS = """
FROM payouts
WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s
  AND (%(status)s::text IS NULL OR status = %(status)s)
  AND (%(currency)s::text IS NULL OR currency = %(currency)s)
"""
# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("status", "currency", "cursor")
_PAGE = (
    "SELECT * "
    + _FILTERS
    + """
  AND (%(cursor)s::text IS NULL OR (created_at, seq) < (
        SELECT created_at, seq FROM payouts
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY created_at DESC, seq DESC
LIMIT %(limit)s
"""
)
# The count joined to the page in one statement (kernel/storage/list_pages.py).
_LIST = counted_page_sql(
    count="SELECT count(*) AS n " + _FILTERS, page=_PAGE, order="p.created_at DESC, p.seq DESC"
)


def _conversion_params(plan: PayoutPlan) -> dict[str, Any]:
    """Each conversion as its pair of rows: the source currency's amount out, the payout's in."""
    currencies: list[str] = []
    amounts: list[int] = []
    mids: list[Decimal] = []
    applied: list[Decimal] = []
    for c in plan.conversions:
        currencies += [c.source_currency, c.target_currency]
        amounts += [-c.source_amount, c.target_amount]
        mids += [c.mid_market_rate, c.mid_market_rate]
        applied += [c.exchange_rate, c.exchange_rate]
    return {"conv_currencies": currencies, "conv_amounts": amounts, "conv_mid": mids, "conv_applied": applied}


def _scope(merchant_id: str, environment: Environment) -> dict[str, Any]:
    return {"merchant_id": merchant_id, "environment": environment.value}


def _payout(row: dict[str, Any]) -> Payout:
    return Payout(
        id=row["id"],
        merchant_id=row["merchant_id"],
        livemode=row["environment"] == Environment.LIVE.value,
        amount=row["amount"],
        currency=row["currency"],
        status=PayoutStatus(row["status"]),
        payout_date=row["payout_date"],
        arrival_date=row["arrival_date"],
        created=row["created_at"],
        failure_code=row["failure_code"],
    )


class PgPayoutRepository:
    def __init__(self, pool: DbPool, accounts: PayoutAccountBox, jobs: PgJobClaims | None = None) -> None:
        self._pool = pool
        self._accounts = accounts  # the account number is sealed at rest (DESIGN §10.9)
        # The run's claims (kernel/storage/job_claims.py), in this core's name.
        self._jobs = jobs or PgJobClaims(pool)

    @wraps_psycopg_errors
    async def claim_due(self, claim: JobClaim, limit: int) -> builtins.list[str]:
        params = {
            "now": claim.now,
            "limit": limit,
            "min_currencies": list(MINIMUMS),
            "min_amounts": list(MINIMUMS.values()),
        }
        async with self._pool.connection() as conn:
            return await self._jobs.due(conn, _CLAIM_DUE, params, claim, claiming=True)

    @wraps_psycopg_errors
    async def settings(self, merchant_id: str) -> PayoutSettings | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SETTINGS, (merchant_id,))).fetchone()
        if row is None:
            return None
        account = self._accounts.open(
            merchant_id,
            row["payout_account_sealed"],
            row["payout_account_key_id"],
            row["payout_account_number"],
        )
        return PayoutSettings(row["payout_schedule"], account, row["settlement_currency"])

    @wraps_psycopg_errors
    async def rates(self, environment: Environment) -> dict[str, Decimal]:
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_RATES, (environment.value,))).fetchall()
        return {row["currency"]: Decimal(row["per_usd"]) for row in rows}

    @wraps_psycopg_errors
    async def unsettled(
        self, merchant_id: str, environment: Environment, cutoff: datetime
    ) -> dict[str, builtins.list[Settleable]]:
        params = {**_scope(merchant_id, environment), "cutoff": cutoff}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_UNSETTLED, params)).fetchall()
        by_currency: dict[str, builtins.list[Settleable]] = {}
        for row in rows:
            by_currency.setdefault(row["currency"], []).append(
                Settleable(row["id"], row["net"], row["available_on"])
            )
        return by_currency

    @wraps_psycopg_errors
    async def create(self, plan: PayoutPlan, environment: Environment, events: Sequence[OutboxEvent]) -> bool:
        payout = plan.payout
        params = {
            **_scope(payout.merchant_id, environment),
            **event_params(payout.merchant_id, environment, events),
            "id": payout.id,
            "amount": payout.amount,
            "currency": payout.currency,
            "payout_date": payout.payout_date,
            "arrival_date": payout.arrival_date,
            "created": payout.created,
            "txn_ids": list(plan.transaction_ids),
            "txn_count": len(plan.transaction_ids),
            "net_currencies": [currency for currency, _ in plan.settled_nets],
            "net_amounts": [net for _, net in plan.settled_nets],
            **_conversion_params(plan),
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_CREATE, params)).fetchone()
        return bool(row and row["written"])

    @wraps_psycopg_errors
    async def arrived(
        self, merchant_id: str, environment: Environment, now: datetime
    ) -> builtins.list[Payout]:
        params = {**_scope(merchant_id, environment), "now": now}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_ARRIVED, params)).fetchall()
        return [_payout(row) for row in rows]

    @wraps_psycopg_errors
    async def arrive(self, payout: Payout, environment: Environment, events: Sequence[OutboxEvent]) -> bool:
        params = {
            **_scope(payout.merchant_id, environment),
            **event_params(payout.merchant_id, environment, events),
            "id": payout.id,
            "status": payout.status.value,
            "failure_code": payout.failure_code,
            "failed": payout.status is PayoutStatus.FAILED,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_ARRIVE, params)).fetchone()
        return bool(row and row["written"])

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, environment: Environment, payout_id: str) -> Payout | None:
        params = {**_scope(merchant_id, environment), "id": payout_id}
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET, params)).fetchone()
        return _payout(row) if row else None

    @wraps_psycopg_errors
    async def list(self, query: PayoutQuery) -> Page[Payout]:
        params = {
            **_scope(query.merchant_id, query.environment),
            "status": query.status.value if query.status else None,
            "currency": query.currency,
            "cursor": query.starting_after,
            "limit": query.limit + 1,
        }
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_counted_page(conn, _LIST, params, query.limit, optional=_OPTIONAL)
        return Page([_payout(row) for row in page.items], page.has_more, page.total_count)
