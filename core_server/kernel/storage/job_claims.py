"""PgJobClaims: the one job-claim mechanism every sweep uses (issue 22), in SQL.

A claim is three columns — `claimed_until`, `claimed_by` (the claiming core), `claim_token` (the batch) —
and one rule, kernel/domain/job_claim.py's `claim_is_free`, written here as `claim_free(alias)`: free
once lapsed, or once the claiming core's heartbeat (core_heartbeats) lapsed. Timed work keeps its claims
in `job_claims`, keyed by (job, entity): a sweep's due query leaves out what `unclaimed()` says another
core holds, and `claim_due_sql` claims the batch it found in the same statement. The row-level check of
ON CONFLICT re-reads a claim committed meanwhile, so two cores never both get one job while a claim
holds; a claim is released by its own token only (`release`), so a batch taken over after a lapse stays
the new holder's. A webhook delivery is a job of its own row (webhook_deliveries carries the same three
columns; `STAMP`, `RELEASED` and `claim_free` are what its queue writes).

The work a claim guards stays exactly-once on its own (an actor's due check under its fence, a payout's
unique day, a delivery's token on its record): the claim spreads work across cores and bounds how long a
dead core's work waits, it is never the only thing between a job and its double.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import DictRow

from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.kernel.application.job_claims import JobClaim

DEFAULT_LAPSE = timedelta(seconds=3)
"""CORE_HEARTBEAT_LAPSE_SECONDS' default: a claiming core silent this long is dead."""


def claim_free(alias: str) -> str:
    """SQL for `claim_is_free` over the claim columns of `alias` (params from `PgJobClaims.params`;
    `claim_by` is the asking core)."""
    return f"""({alias}.claimed_until IS NULL OR {alias}.claimed_until <= %(claim_now)s
      OR ({alias}.claimed_by IS NOT NULL AND {alias}.claimed_by IS DISTINCT FROM %(claim_by)s AND NOT EXISTS (
            SELECT 1 FROM core_heartbeats hb
             WHERE hb.process = {alias}.claimed_by AND hb.last_seen > %(claim_alive_since)s)))"""


def unclaimed(entity: str) -> str:
    """SQL: job `%(claim_job)s` of `entity` (an SQL text expression) holds no live claim."""
    return f"""NOT EXISTS (SELECT 1 FROM job_claims jc
                    WHERE jc.job = %(claim_job)s AND jc.entity = {entity} AND NOT {claim_free("jc")})"""


def claim_due_sql(picked: str) -> str:
    """One statement that claims the jobs `picked` found: `picked` is a query returning `id` (text),
    filtered with `unclaimed()` and limited to the batch. Returns the ids this claim got; one that
    another core claimed meanwhile is re-checked under its row lock and left out. Rows are written in
    entity order, so two claims of overlapping batches wait for each other instead of deadlocking."""
    return f"""
WITH picked AS ({picked})
INSERT INTO job_claims AS c (job, entity, claimed_until, claimed_by, claim_token)
SELECT %(claim_job)s, p.id, %(claim_until)s, %(claim_by)s, %(claim_token)s
  FROM (SELECT DISTINCT id FROM picked) p ORDER BY p.id
ON CONFLICT (job, entity) DO UPDATE
   SET claimed_until = EXCLUDED.claimed_until, claimed_by = EXCLUDED.claimed_by,
       claim_token = EXCLUDED.claim_token
 WHERE {claim_free("c")}
RETURNING c.entity AS id"""


STAMP = "claimed_until = %(claim_until)s, claimed_by = %(claim_by)s, claim_token = %(claim_token)s"
"""The claim written on a row that is its own job (a webhook delivery)."""
RELEASED = "claimed_until = NULL, claimed_by = NULL, claim_token = NULL"
"""A row's claim handed back (its work recorded)."""

_CLAIM_LISTED = claim_due_sql(
    "SELECT e.id FROM unnest(%(claim_entities)s::text[]) AS e(id) WHERE " + unclaimed("e.id")
)
# Locked in entity order, like the claims, so a release and a takeover never deadlock.
_RELEASE = """
DELETE FROM job_claims WHERE (job, entity) IN (
  SELECT job, entity FROM job_claims
   WHERE job = %(claim_job)s AND entity = ANY(%(claim_entities)s::text[]) AND claim_token = %(claim_token)s
   ORDER BY entity FOR UPDATE)
"""
# Claims left by cores that died (a release never came), long after they lapsed.
_PURGE = """
DELETE FROM job_claims WHERE ctid IN (
  SELECT ctid FROM job_claims WHERE claimed_until <= %(cutoff)s LIMIT %(limit)s FOR UPDATE SKIP LOCKED)
"""


class PgJobClaims:
    """This core's claims: made in its name (`process`, None in tests that run no heartbeat: the lease
    alone then holds), judged against the heartbeat lapse (CORE_HEARTBEAT_LAPSE_SECONDS)."""

    def __init__(self, pool: DbPool, process: str | None = None, *, lapse: timedelta = DEFAULT_LAPSE) -> None:
        self._pool = pool
        self.process = process
        self._lapse = lapse

    def params(self, claim: JobClaim) -> dict[str, Any]:
        """The parameters `claim_free`, `unclaimed`, `claim_due_sql` and `STAMP` read."""
        return {
            "claim_job": claim.job,
            "claim_now": claim.now,
            "claim_alive_since": claim.now - self._lapse,
            "claim_until": claim.until,
            "claim_by": self.process,
            "claim_token": claim.token,
        }

    async def due(
        self,
        conn: AsyncConnection[DictRow],
        due_sql: str,
        params: Mapping[str, Any],
        claim: JobClaim,
        *,
        claiming: bool,
    ) -> list[str]:
        """Runs a due query written with `unclaimed()` (returning `id`): claiming what it finds for
        `claim`, or, not `claiming` (one merchant's run after its sandbox clock moved), reading it as it
        is, claimed or not (the job's params then name no job, so `unclaimed()` holds for all)."""
        if claiming:
            query = claim_due_sql(due_sql)
            values = {**params, **self.params(claim)}
        else:
            query = due_sql
            values = {**params, **self.params(claim), "claim_job": None}
        rows = await (await conn.execute(query, values)).fetchall()
        return [row["id"] for row in rows]

    @wraps_psycopg_errors
    async def claim(self, claim: JobClaim, entities: Sequence[str]) -> list[str]:
        """Claims the listed jobs that are free; returns those it got."""
        params = self.params(claim) | {"claim_entities": list(entities)}
        async with self._pool.connection() as conn:
            rows = await (await conn.execute(_CLAIM_LISTED, params)).fetchall()
        return [row["id"] for row in rows]

    @wraps_psycopg_errors
    async def release(self, claim: JobClaim, entities: Sequence[str]) -> None:
        if not entities:
            return
        params = {"claim_job": claim.job, "claim_token": claim.token, "claim_entities": list(entities)}
        async with self._pool.connection() as conn:
            await conn.execute(_RELEASE, params)

    @wraps_psycopg_errors
    async def purge_older_than(self, cutoff: datetime, limit: int) -> int:
        """Retention (kernel/application/retention_sweep.py): claims lapsed at or before `cutoff`."""
        async with self._pool.connection() as conn:
            return (await conn.execute(_PURGE, {"cutoff": cutoff, "limit": limit})).rowcount
