"""PgTestDataStore: the TEST reset as one transaction over RESET_STEPS, the TEST clock and its answer."""

from __future__ import annotations

import logging
from collections.abc import Callable

import psycopg

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.developer_tools.domain.sandbox_reset import TestReset
from core_server.developer_tools.storage.sandbox_reset_tables import RESET_STEPS, delete_statement
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.storage.clock_offsets import CLOCK_CHANNEL
from core_server.kernel.storage.idempotency_store import complete_in_transaction

logger = logging.getLogger(__name__)

# Back to real time: no row means no offset. Every core drops its cached offsets on the NOTIFY (sent at
# commit, so never for a reset that rolled back).
_RESET_CLOCK = "DELETE FROM test_clocks WHERE merchant_id = %(merchant_id)s"
_NOTIFY_CLOCK = "SELECT pg_notify(%(channel)s, %(merchant_id)s)"
# The merchant row, locked: two resets of one merchant run one after the other, not interleaved.
_LOCK_MERCHANT = "SELECT 1 FROM merchants WHERE id = %(merchant_id)s FOR UPDATE"
ATTEMPTS = 3


class PgTestDataStore:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def reset(
        self,
        merchant_id: str,
        completion_for: Callable[[TestReset], IdempotencyCompletion] | None,
        keep_key: str | None,
    ) -> TestReset:
        params = {"merchant_id": merchant_id, "keep_key": keep_key, "channel": CLOCK_CHANNEL}
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return await self._reset_once(params, completion_for)
            except psycopg.errors.ForeignKeyViolation:
                # A write of the sandbox committed a child between our delete of its table and the delete
                # of its parent (a refund of a charge, say). The transaction rolled back whole; run again.
                if attempt == ATTEMPTS:
                    raise
                logger.info("test reset of %s raced a sandbox write; retrying", merchant_id)
        raise AssertionError("unreachable")

    async def _reset_once(
        self,
        params: dict[str, str | None],
        completion_for: Callable[[TestReset], IdempotencyCompletion] | None,
    ) -> TestReset:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(_LOCK_MERCHANT, params)
            counts: dict[str, int] = {}
            for step in RESET_STEPS:
                cursor = await conn.execute(delete_statement(step), params)
                if step.name is not None:
                    counts[step.name] = counts.get(step.name, 0) + max(cursor.rowcount, 0)
            await conn.execute(_RESET_CLOCK, params)
            await conn.execute(_NOTIFY_CLOCK, params)
            result = TestReset(tuple(counts.items()))
            if completion_for is not None:
                await complete_in_transaction(conn, completion_for(result))
        return result
