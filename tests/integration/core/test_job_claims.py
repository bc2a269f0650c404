"""The one job-claim mechanism (kernel/storage/job_claims.py) against real PostgreSQL: two claimers never
get the same job, a claim holds until it lapses or its core's heartbeat does, only its own token releases
it, and the SQL rule is the domain rule (kernel/domain/job_claim.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from core_server.db.pool import DbPool
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.domain.job_claim import claim_is_free
from core_server.kernel.storage.heartbeats import PgHeartbeats
from core_server.kernel.storage.job_claims import PgJobClaims, claim_free

pytestmark = pytest.mark.integration

NOW = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
LAPSE = timedelta(seconds=3)
LEASE = timedelta(minutes=5)
JOB = "claim-test"


def claim_at(at: datetime, lease: timedelta = LEASE) -> JobClaim:
    return JobClaim.fresh(JOB, at, lease)


async def test_concurrent_claimers_of_the_same_jobs_never_get_one_twice(pg_pool: DbPool) -> None:
    jobs = [f"job-{n}" for n in range(300)]
    claimers = [PgJobClaims(pg_pool, f"core-{n}", lapse=LAPSE) for n in range(6)]
    for n in range(6):
        await PgHeartbeats(pg_pool, f"core-{n}").beat(NOW)
    for round_ in range(3):
        # Every claimer asks for every job at once (in another order each), as six cores' sweeps would.
        claims = [claim_at(NOW) for _ in claimers]
        got = await asyncio.gather(
            *(
                c.claim(claim, jobs[n::2] + jobs[1 - n % 2 :: 2])
                for n, (c, claim) in enumerate(zip(claimers, claims, strict=True))
            )
        )
        won = [job for batch in got for job in batch]
        assert len(won) == len(set(won)), f"round {round_}: a job claimed twice"
        assert set(won) == set(jobs)
        # Held: nobody gets any of them again until released.
        assert await claimers[0].claim(claim_at(NOW), jobs) == []
        for claimer, claim, batch in zip(claimers, claims, got, strict=True):
            await claimer.release(claim, batch)


async def test_a_claim_holds_until_it_lapses_and_only_its_token_releases_it(pg_pool: DbPool) -> None:
    mine, theirs = PgJobClaims(pg_pool), PgJobClaims(pg_pool)  # no core named: the lease alone holds
    first = claim_at(NOW, timedelta(seconds=10))
    assert await mine.claim(first, ["a"]) == ["a"]
    assert await theirs.claim(claim_at(NOW + timedelta(seconds=9)), ["a"]) == []
    late = claim_at(NOW + timedelta(seconds=10))
    assert await theirs.claim(late, ["a"]) == ["a"]  # lapsed: taken over
    await mine.release(first, ["a"])  # the old holder's release frees nothing of the new claim
    assert await mine.claim(claim_at(NOW + timedelta(seconds=11)), ["a"]) == []
    await theirs.release(late, ["a"])
    assert await mine.claim(claim_at(NOW + timedelta(seconds=11)), ["a"]) == ["a"]


async def test_the_claims_of_a_core_whose_heartbeat_lapsed_are_taken_over_at_once(pg_pool: DbPool) -> None:
    dead, alive = PgHeartbeats(pg_pool, "core-dead"), PgHeartbeats(pg_pool, "core-alive")
    dead_claims = PgJobClaims(pg_pool, dead.process, lapse=LAPSE)
    alive_claims = PgJobClaims(pg_pool, alive.process, lapse=LAPSE)
    await dead.beat(NOW)
    await alive.beat(NOW)
    assert await dead_claims.claim(claim_at(NOW), ["x", "y"]) == ["x", "y"]
    assert await alive_claims.claim(claim_at(NOW + timedelta(seconds=2)), ["x"]) == []  # still beating
    # The dead core beats no more; five minutes of lease are left, yet its claims are free after the lapse.
    await alive.beat(NOW + timedelta(seconds=4))
    assert sorted(await alive_claims.claim(claim_at(NOW + timedelta(seconds=4)), ["x", "y"])) == ["x", "y"]
    # And a live core's claims are not: the dead one (back, or a third core) finds them held.
    await dead.beat(NOW + timedelta(seconds=5))
    assert await dead_claims.claim(claim_at(NOW + timedelta(seconds=5)), ["x", "y"]) == []


async def test_the_sql_rule_is_the_domain_rule(pg_pool: DbPool) -> None:
    beats = {"beating": NOW - timedelta(seconds=1), "silent": NOW - LAPSE, "gone": None}
    for process, at in beats.items():
        if at is not None:
            await PgHeartbeats(pg_pool, process).beat(at)
    untils = [None, NOW - timedelta(seconds=1), NOW, NOW + timedelta(seconds=1), NOW + LEASE]
    asking = "silent"  # a core whose own claims hold for itself, whatever its heartbeat says
    cases = [(until, by) for until in untils for by in [None, *beats]]
    sql = f"""
SELECT v.n, {claim_free("v")} AS free
  FROM unnest(%(ns)s::int[], %(untils)s::timestamptz[], %(bys)s::text[]) AS v(n, claimed_until, claimed_by)
 ORDER BY v.n"""
    params = {
        "ns": list(range(len(cases))),
        "untils": [until for until, _ in cases],
        "bys": [by for _, by in cases],
        "claim_now": NOW,
        "claim_alive_since": NOW - LAPSE,
        "claim_by": asking,
    }
    async with pg_pool.connection() as conn:
        rows = await (await conn.execute(sql, params)).fetchall()
    in_sql = [row["free"] for row in rows]
    in_python = [
        claim_is_free(until, by, beats.get(by) if by else None, NOW, LAPSE, asking) for until, by in cases
    ]
    assert in_sql == in_python
    assert True in in_python and False in in_python
