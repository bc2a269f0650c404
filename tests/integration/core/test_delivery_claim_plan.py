"""A webhook claim costs in proportion to the endpoints with something pending, not to every endpoint
the platform has registered nor to its delivery history.

The dispatcher claims on every wake-up, several times a second under load. The claim used to start from
every endpoint of every merchant (a probe of each one's due rows) and to update the rows it picked
through a hash of the whole deliveries table: with 20,000 endpoints and 200,000 past deliveries, 230–330
ms a claim (BENCHMARKS.md, "Speed, round 9"). Here a table of thousands of endpoints, almost all with
nothing pending, and a history of delivered rows, analysed so the planner knows their sizes: the claim
must take the due rows of the three endpoints that have any, and read only those endpoints' rows.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from core_server.db.pool import DbPool
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.storage.job_claims import PgJobClaims
from core_server.webhooks.storage.delivery_queue import _CLAIM, CLAIM_JOB, claim_limits
from tests.support.query_plans import analyzed_plan, fill_and_analyze, rows_read, scans

pytestmark = pytest.mark.integration

ENDPOINTS = 3_000
HISTORY = 30_000
BUSY_ENDPOINTS = 3
DUE_EACH = 4

# FK checks are off for this session only (session_replication_role): the plan depends on the two
# tables' sizes, and a merchant and an event per row would be most of the test's time.
_FILL = (
    """
INSERT INTO webhook_endpoints (id, merchant_id, environment, url, events, status, secret_sealed, created_at)
SELECT 'we_plan' || e, 'acct_plan' || e, 'live', 'https://example.com/hook', ARRAY['*'], 'enabled', '\\x00',
       now()
  FROM generate_series(1, %(endpoints)s) e""",
    """
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count, next_attempt_at, created_at)
SELECT 'wd_old' || d, 'evt_old' || d, 'we_plan' || (1 + d %% %(endpoints)s), 'succeeded', 1,
       now() - interval '1 day', now() - interval '1 day'
  FROM generate_series(1, %(history)s) d""",
    """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at)
SELECT 'evt_due' || e || '_' || k, 'acct_plan' || e, 'live', 'charge.succeeded', 'ch_' || k, '{}', now()
  FROM generate_series(1, %(busy)s) e, generate_series(1, %(each)s) k""",
    """
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count, next_attempt_at, created_at)
SELECT 'wd_due' || e || '_' || k, 'evt_due' || e || '_' || k, 'we_plan' || e, 'pending', 0,
       now() - interval '1 minute', now() - interval '1 minute'
  FROM generate_series(1, %(busy)s) e, generate_series(1, %(each)s) k""",
)


def _params(pool: DbPool, now: datetime) -> dict[str, Any]:
    claim = PgJobClaims(pool, "core-plan-test").params(JobClaim.fresh(CLAIM_JOB, now, timedelta(seconds=60)))
    limits = claim_limits(
        now,
        32,
        per_endpoint=8,
        ahead=0,
        skip_endpoints=[],
        per_merchant=16,
        merchant_busy={},
        endpoint_busy={},
        reserve=8,
    )
    return {**claim, **limits}


async def test_a_claim_reads_only_the_endpoints_with_something_pending(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    params = {"endpoints": ENDPOINTS, "history": HISTORY, "busy": BUSY_ENDPOINTS, "each": DUE_EACH}
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        fill_and_analyze(conn, _FILL, params, ["webhook_endpoints", "webhook_deliveries"])
        with conn.transaction(force_rollback=True):
            plan = analyzed_plan(conn, _CLAIM, _params(isolated_pool, datetime.now(UTC)))
    assert plan["Actual Rows"] == BUSY_ENDPOINTS * DUE_EACH, plan  # every due row, within the quotas
    for scan in scans(plan):
        if scan["Relation Name"] in {"webhook_endpoints", "webhook_deliveries"}:
            assert scan["Node Type"] != "Seq Scan", scan
    # The three endpoints with due rows, read once to pick them and once for the claimed rows each.
    assert rows_read(plan, "webhook_endpoints") <= BUSY_ENDPOINTS + BUSY_ENDPOINTS * DUE_EACH, scans(plan)
