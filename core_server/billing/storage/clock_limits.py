"""PgClockLimits: the merchant's TEST clock limit (DESIGN §10.5), read from its live subscriptions.

Billing implements the kernel's `AdvanceLimits` port: the query reads the distinct billing intervals of
the merchant's TEST subscriptions that are not CANCELED, and the pure rule picks the shortest.
"""

from __future__ import annotations

from datetime import datetime

from core_server.billing.domain.clock_limit import advance_limit
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.domain.sandbox_clock import AdvanceLimit

LIVE_INTERVALS = """
SELECT DISTINCT billing_interval, interval_count FROM subscriptions
WHERE merchant_id = %(merchant_id)s AND environment = 'test' AND status <> 'CANCELED'
"""


class PgClockLimits:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def limit(self, merchant_id: str, test_now: datetime) -> AdvanceLimit:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(LIVE_INTERVALS, {"merchant_id": merchant_id})
            rows = await cursor.fetchall()
        intervals = [(row["billing_interval"], int(row["interval_count"])) for row in rows]
        return advance_limit(test_now, intervals)
