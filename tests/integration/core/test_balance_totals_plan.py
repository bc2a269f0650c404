"""GET /balance reads what no payout has settled yet, not the merchant's whole history.

The totals used to sum every balance transaction the merchant ever had, on every request: 159 ms for a
merchant with 200,000 rows (BENCHMARKS.md, "Speed, round 9"). A payout's settled rows, its conversion
pair and its own −amount row net to zero in each currency, so the sums need only the unsettled rows, and
the currencies (each shown, a zero too) come from one index probe apiece. Here a merchant with thousands
of settled rows and a handful of unsettled ones: the totals must be right and read only the handful.
"""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest

from core_server.db.pool import DbPool
from core_server.ledger.storage.ledger_repository import _TOTALS
from tests.support.query_plans import analyzed_plan, fill_and_analyze, rows_read, scans

pytestmark = pytest.mark.integration

SETTLED = 5_000
UNSETTLED = 4

# FK checks are off for this session only (session_replication_role): the plan depends on the
# balance_transactions table alone. Settled: pairs of +1000 and −1000 under one payout (they net to zero,
# as a payout's rows do); in eur only settled rows, which must still show as a zero.
_FILL = (
    """
INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                  currency, available_on, payout, created_at)
SELECT 'txn_s' || n, 'acct_totals', 'live', 'charge', 'ch_s' || n, sign, 0, 0, sign,
       CASE WHEN n %% 2 = 0 THEN 'usd' ELSE 'eur' END, %(now)s - interval '30 days', 'po_totals',
       %(now)s - interval '32 days'
  FROM generate_series(1, %(settled)s) n,
       LATERAL (SELECT CASE WHEN (n / 2) %% 2 = 0 THEN 1000 ELSE -1000 END AS sign) s""",
    # Two available and two pending, in usd.
    """
INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                  currency, available_on, created_at)
SELECT 'txn_u' || n, 'acct_totals', 'live', 'charge', 'ch_u' || n, 500, 30, 0, 470, 'usd',
       %(now)s + CASE WHEN n <= 2 THEN interval '-1 day' ELSE interval '1 day' END, %(now)s - interval '1 day'
  FROM generate_series(1, %(unsettled)s) n""",
)


async def test_the_totals_read_the_unsettled_rows_and_one_probe_per_currency(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    now = datetime.now(UTC)
    params = {"now": now, "merchant_id": "acct_totals", "environment": "live"}
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        fill_and_analyze(
            conn, _FILL, {"now": now, "settled": SETTLED, "unsettled": UNSETTLED}, ["balance_transactions"]
        )
        totals = conn.execute(_TOTALS, params).fetchall()
        every_row = conn.execute(
            "SELECT currency, sum(net) FILTER (WHERE available_on <= %(now)s) AS available,"
            " coalesce(sum(net) FILTER (WHERE available_on > %(now)s), 0) AS pending"
            " FROM balance_transactions WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
            " GROUP BY currency ORDER BY currency",
            params,
        ).fetchall()
        plan = analyzed_plan(conn, _TOTALS, params)
    assert sorted(totals) == [("eur", 0, 0), ("usd", 940, 940)]
    assert sorted(totals) == every_row  # the same sums as over every row
    # The unsettled rows, and a probe per currency plus the one that finds no further currency.
    assert rows_read(plan, "balance_transactions") <= UNSETTLED + 3, scans(plan)
