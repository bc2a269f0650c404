"""An activation's read of a subscription's owed invoices stays on that subscription's rows, whatever
the statistics say.

The read is a prepared statement (psycopg prepares what a connection runs often), so PostgreSQL may run
it with a generic plan, costed on the statistics of the last ANALYZE. A billing run opens thousands of
invoices between two ANALYZEs; an index led by the status let that plan AND a scan of every OPEN invoice
into the subscription's own few rows (0.76 ms a read instead of 0.03 ms in the billing benchmark, until
migration 0027 dropped those indexes). Here the table is analysed while almost every invoice is PAID,
then most are made OPEN, and the generic plan must still reach invoices through the subscription only.
"""

from __future__ import annotations

import psycopg
import pytest

from core_server.billing.storage.subscription_repository import _OWED_INVOICES
from core_server.db.pool import DbPool
from tests.support.query_plans import explained, nodes

pytestmark = pytest.mark.integration

SUBSCRIPTIONS = 2_000
INVOICES_EACH = 3

# FK checks are off for this session only (session_replication_role): the plan depends on the invoices
# table alone, and a whole merchant-customer-subscription chain per row would be most of the test's time.
_FILL = """
INSERT INTO invoices (id, merchant_id, environment, subscription_id, customer_id, currency, lines,
                      subtotal_cents, tax_cents, total_cents, status, billing_reason, period_start,
                      period_end, created_at)
SELECT 'si_' || md5(s::text || '-' || k::text), 'acct_plan', 'test', 'sub_' || s, 'cus_' || s, 'usd', '[]',
       1000, 0, 1000, 'PAID', 'subscription_cycle', now() - k * interval '1 month', now(), now()
  FROM generate_series(1, %(subscriptions)s) s, generate_series(1, %(each)s) k"""


async def test_the_generic_plan_reads_only_the_subscriptions_rows_after_a_billing_run_opened_thousands(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute(_FILL, {"subscriptions": SUBSCRIPTIONS, "each": INVOICES_EACH})
        conn.execute("ANALYZE invoices")
        # The billing run: one invoice of most subscriptions opened since the statistics were taken.
        conn.execute("UPDATE invoices SET status = 'OPEN' WHERE right(id, 1) < 'e'")
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute("PREPARE owed(text[]) AS " + _OWED_INVOICES.replace("%s", "$1"))
        plan = explained(conn, "EXPLAIN (FORMAT JSON) EXECUTE owed(ARRAY['sub_7'])")
        conditions = [str(n[key]) for n in nodes(plan) for key in ("Index Cond", "Recheck Cond") if key in n]
        assert conditions, plan
        for condition in conditions:
            assert "subscription_id" in condition and "status" not in condition, (condition, plan)
        indexes_scanned = [str(n["Index Name"]) for n in nodes(plan) if "Index Name" in n]
        assert "invoices_of_subscription" in indexes_scanned or (
            "invoices_open_of_subscription" in indexes_scanned
        ), plan
