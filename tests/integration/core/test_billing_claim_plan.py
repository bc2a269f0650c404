"""The billing run's claim costs in proportion to what is due and to the merchants with a sandbox clock,
not to every TEST subscription on the platform.

The claim reads two ranges: what is due at real time, and what only a merchant's advanced sandbox clock
made due. The second used to be one range over every TEST subscription in next-step order, probing each
one's clock: when the batch was not filled — on almost every run, since little is due at any moment — it
read them all (134–222 ms a claim at 10,000 merchants and 100,000 subscriptions; BENCHMARKS.md, "Speed,
round 9"). Here thousands of TEST subscriptions are not due, a few merchants moved their clocks, and the
claim must find the due ones while reading only a few rows beyond them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from core_server.billing.storage.subscription_repository import _CLAIM_DUE
from core_server.db.pool import DbPool
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.storage.job_claims import PgJobClaims
from tests.support.query_plans import analyzed_plan, fill_and_analyze, rows_read, scans

pytestmark = pytest.mark.integration

MERCHANTS = 1_000
SUBSCRIPTIONS_EACH = 8
CLOCKED = 100
DUE_AT_REAL_TIME = 3

# FK checks are off for this session only (session_replication_role): the plan depends on the
# subscriptions table, not on the merchants, customers and prices its rows name.
_FILL = (
    """
INSERT INTO subscriptions (id, merchant_id, environment, customer_id, price_id, currency, billing_interval,
                           interval_count, status, collection_method, billing_anchor, period_index,
                           current_period_start, current_period_end, created_at, next_step_at)
SELECT 'sub_plan' || m || '_' || k, 'acct_plan' || m, 'test', 'cus_plan' || m, 'price_plan', 'usd',
       'monthly', 1, 'ACTIVE', 'charge_automatically', %(now)s - interval '10 days', 0,
       %(now)s - interval '10 days', %(now)s + interval '20 days', %(now)s - interval '10 days',
       %(now)s + interval '17 days' + k * interval '1 hour'
  FROM generate_series(1, %(merchants)s) m, generate_series(1, %(each)s) k""",
    # A few merchants moved their clocks, by less than their subscriptions' next steps: nothing of theirs
    # is due either.
    """
INSERT INTO test_clocks (merchant_id, time_offset)
SELECT 'acct_plan' || m, interval '2 days' FROM generate_series(1, %(clocked)s) m""",
    # Due at real time.
    """
UPDATE subscriptions SET next_step_at = %(now)s - interval '1 hour'
 WHERE id IN (SELECT 'sub_plan' || m || '_1'
                FROM generate_series(%(merchants)s - %(due)s + 1, %(merchants)s) m)""",
)


def _params(pool: DbPool, now: datetime) -> dict[str, Any]:
    claim = PgJobClaims(pool, "core-plan-test").params(JobClaim.fresh("billing", now, timedelta(seconds=60)))
    return {**claim, "now": now, "limit": 100, "merchant_id": None, "environment": None}


async def test_the_claim_reads_what_is_due_and_each_clocks_range_not_every_test_subscription(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    now = datetime.now(UTC)
    fill = {
        "now": now,
        "merchants": MERCHANTS,
        "each": SUBSCRIPTIONS_EACH,
        "clocked": CLOCKED,
        "due": DUE_AT_REAL_TIME,
    }
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        fill_and_analyze(conn, _FILL, fill, ["subscriptions", "test_clocks"])
        plan = analyzed_plan(conn, _CLAIM_DUE, _params(isolated_pool, now))
    assert plan["Actual Rows"] == DUE_AT_REAL_TIME, plan
    # The due rows, and at most one row past each range's end.
    assert rows_read(plan, "subscriptions") <= DUE_AT_REAL_TIME + 1 + CLOCKED, scans(plan)
