"""The TEST event log a `payconnect listen` stream reads: in (transaction, seq) order as numbers, and by
its index from the position on.

The read used to order by its output column `tx::text`: as text, transaction 100 sorts before 99, so a
stream that read 100 first resumed after it and never sent 99; and every row after the position was read
and sorted on each poll (237 ms at 200,000 events; BENCHMARKS.md, "Speed, round 9"). Transaction ids of
any value can be written into `events.tx` (it is an xid8 column), so the digit boundary is set up here.
"""

from __future__ import annotations

import psycopg
import pytest

from core_server.db.pool import DbPool
from core_server.developer_tools.domain.cli_session import StreamPosition
from core_server.developer_tools.storage.sandbox_event_log import _AFTER, PgTestEventLog
from tests.support.query_plans import analyzed_plan, fill_and_analyze, rows_read

pytestmark = pytest.mark.integration

MERCHANT = "acct_eventlog"
HISTORY = 3_000

# Events of long-finished transactions around two digit boundaries, inserted out of order, and a history
# of later events behind them.
_FILL = (
    """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at, tx)
SELECT 'evt_tx' || t, %(merchant)s, 'test', 'charge.succeeded', 'ch_log', '{}', now(), t::text::xid8
  FROM unnest(ARRAY[100, 99, 1000, 999]) t""",
    """
INSERT INTO events (id, merchant_id, environment, type, object_id, payload, created_at, tx)
SELECT 'evt_later' || n, %(merchant)s, 'test', 'charge.refunded', 'ch_log', '{}', now(),
       (2000 + n)::text::xid8
  FROM generate_series(1, %(history)s) n""",
)


async def test_a_stream_reads_the_log_in_transaction_order_from_the_index(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        fill_and_analyze(conn, _FILL, {"merchant": MERCHANT, "history": HISTORY}, ["events"])
        # From before them all, a batch of 10 is the index's first 10 rows, not all 3,004 sorted.
        plan = analyzed_plan(conn, _AFTER, {"merchant_id": MERCHANT, "tx": "0", "seq": 0, "limit": 10})
    assert plan["Actual Rows"] == 10, plan
    assert rows_read(plan, "events") <= 10, plan
    log = PgTestEventLog(isolated_pool)
    position = StreamPosition(0, 0)
    seen = []
    for _ in range(4):  # one event a read, as a stream resumes after each
        (event,) = await log.after(MERCHANT, position, 1)
        seen.append(event.id)
        position = event.position
    assert seen == ["evt_tx99", "evt_tx100", "evt_tx999", "evt_tx1000"]
