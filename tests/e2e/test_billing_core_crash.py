"""The core running the billing run is killed with SIGKILL in the middle of it: a restarted core finishes
the run, no period is billed twice, and nothing is left half-billed.

Only the doomed core bills until the kill (the other core serves requests and starts no run of its own):
with two cores billing, the first could be between batches, or not started yet, when the run reaches the
kill point, and a kill of an idle core proves nothing. Two cores billing one run at once is
test_billing_exactly_once's subject.

Where a kill can land in one subscription's step: before the step's turn (the subscription is still due:
its claim goes with the dead core's heartbeat, long before JOB_CLAIM_SECONDS, and another run takes it),
after the turn that opened the period's invoice but before its charge, or after the charge but before the
turn that records it. In the last case the next attempt of the same (invoice, attempt) gets the existing
charge back from its unique index, so the charge is recorded once — if something makes that next attempt.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, sign_up
from tests.support.billing_load import MAKE_DUE, PRICE_CENTS, create_subscriptions, due_left
from tests.support.private_services import fault_env, private_postgres, private_redis, wait_until
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles
from tests.support.table_audit import count, half_written

pytestmark = pytest.mark.e2e

SUBSCRIPTIONS = 250
CLAIM_SECONDS = 300  # JOB_CLAIM_SECONDS: the dead core's claims must go with its heartbeat, not this
LAPSE_SECONDS = 3  # CORE_HEARTBEAT_LAPSE_SECONDS' default
# Claims of the billing run held by a core that still beats (a dead core's claims are free to take).
LIVE_CLAIMS = """
SELECT count(*) FROM job_claims c
 WHERE c.job = 'billing' AND c.claimed_until > now()
   AND EXISTS (SELECT 1 FROM core_heartbeats h
                WHERE h.process = c.claimed_by AND h.last_seen > now() - interval '3 seconds')"""
KILL_AFTER = 60  # cycle invoices written before the kill: the run is under way, most of it still to do
# A step between its two turns: the period's invoice is written, its attempt is not recorded yet.
MID_STEP = "SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle' AND attempt_count = 0"
MID_STEP_AT_LEAST = 3
CYCLES = "SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle'"


@dataclass
class Crash:
    dsn: str
    subscription_ids: list[str]
    mid_step_at_kill: int  # cycle invoices written but not yet attempted, just after the kill
    cycles_at_kill: int
    seconds_to_settle: float
    merchant: Merchant
    gateway: RunningProcess  # the survivor's


def settled(dsn: str, merchant_id: str) -> bool:
    """Nothing due at real time and no live claim held: no run has anything left to take."""
    return due_left(dsn, merchant_id) == 0 and count(dsn, LIVE_CLAIMS) == 0


@pytest.fixture(scope="module")
def crash(stack_env: dict[str, str]) -> Iterator[Crash]:
    with private_postgres() as postgres, private_redis() as redis:
        dsn = postgres.create_database("billing_crash")
        env = fault_env(
            stack_env,
            dsn,
            redis.url,
            BILLING_INTERVAL_SECONDS="1",
            JOB_CLAIM_SECONDS=str(CLAIM_SECONDS),
        )
        started: list[RunningProcess] = []
        try:
            # The survivor's one billing pass runs at its start, before anything is due; the next, in an hour.
            serving_only = {**env, "BILLING_INTERVAL_SECONDS": "3600"}
            cores = [start_core(env), start_core(serving_only)]
            started += cores
            gateways = [start_gateway(env, [cores[0].address]), start_gateway(env, [cores[1].address])]
            started += gateways
            with httpx.Client(base_url=gateways[0].base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            subscription_ids = asyncio.run(create_subscriptions(gateways, merchant, SUBSCRIPTIONS))
            with psycopg.connect(dsn) as conn:
                assert conn.execute(MAKE_DUE, (merchant.id,)).rowcount == SUBSCRIPTIONS

            # Kill the billing core in the middle of steps, once the run is well begun. Several steps must be
            # mid-way when it is looked at, so that they cannot all finish in the instant before the kill.
            doomed: list[RunningProcess] = []

            def mid_run() -> bool:
                if count(dsn, CYCLES) < KILL_AFTER or count(dsn, MID_STEP) < MID_STEP_AT_LEAST:
                    return False
                os.kill(cores[0].pid, signal.SIGKILL)
                doomed.append(cores[0])
                return True

            wait_until(mid_run, timeout=30, interval=0.005, what="the billing run to be mid-step")
            killed = doomed[0]
            assert killed.process.wait(10) == -signal.SIGKILL
            killed_at = time.monotonic()
            mid_step, cycles = count(dsn, MID_STEP), count(dsn, CYCLES)
            assert cycles < SUBSCRIPTIONS, "the kill came after the whole run"
            # A restarted core takes the run over once the dead core's heartbeat lapsed.
            started.append(start_core(env))
            try:
                wait_until(lambda: settled(dsn, merchant.id), timeout=45, interval=0.2, what="the run to end")
            except AssertionError as exc:
                due = due_left(dsn, merchant.id)
                claimed = count(dsn, LIVE_CLAIMS)
                logs = "\n".join(core.log_tail(3000) for core in started[-1:] + cores if core is not killed)
                raise AssertionError(f"{exc}: {due} due, {claimed} claimed; core logs:\n{logs}") from None
            # A second look: a step the survivors were still recording when the first look passed.
            time.sleep(LAPSE_SECONDS)
            wait_until(lambda: settled(dsn, merchant.id), timeout=15, interval=0.2, what="the run to finish")
            settle = time.monotonic() - killed_at
            print(f"killed at {cycles} cycle invoices ({mid_step} mid-step); settled {settle:.1f}s after")
            survivor = gateways[1 - cores.index(killed)]
            yield Crash(dsn, subscription_ids, mid_step, cycles, settle, merchant, survivor)
        finally:
            for process in reversed(started):
                if process.is_running():
                    process.stop()


def test_a_core_killed_mid_billing_run_bills_no_period_twice(crash: Crash) -> None:
    with psycopg.connect(crash.dsn) as conn:
        periods = conn.execute(
            "SELECT count(*), count(DISTINCT (subscription_id, period_start)) FROM invoices"
        ).fetchone()
        per_subscription = conn.execute(
            "SELECT max(n), min(n) FROM (SELECT count(*) AS n FROM invoices GROUP BY subscription_id) x"
        ).fetchone()
        charges = conn.execute(
            "SELECT count(*), count(DISTINCT (invoice_id, invoice_attempt)) FROM charges"
            " WHERE invoice_id IS NOT NULL"
        ).fetchone()
        taken = conn.execute(
            """SELECT max(captured) FROM (
                 SELECT sum(c.amount_captured) AS captured
                 FROM charges c JOIN invoices i ON i.id = c.invoice_id GROUP BY i.subscription_id) x"""
        ).fetchone()
    assert periods is not None and periods[0] == periods[1]  # no (subscription, period) twice
    assert per_subscription == (2, 2)  # the first invoice and the one cycle: none twice, none skipped
    assert charges is not None and charges[0] == charges[1]  # one charge per (invoice, attempt)
    assert taken == (2 * PRICE_CENTS,)  # no subscription charged more than its two periods
    audit = half_written(crash.dsn)
    assert "period invoiced twice (double-billed)" not in audit
    assert "credit of an invoice that is not paid" not in audit


def test_a_core_killed_mid_billing_run_leaves_nothing_half_billed(crash: Crash) -> None:
    assert crash.mid_step_at_kill > 0, "the kill landed between steps: the test proves nothing"
    with psycopg.connect(crash.dsn) as conn:
        states = conn.execute(
            "SELECT billing_reason, status, attempt_count, count(*) FROM invoices GROUP BY 1, 2, 3"
        ).fetchall()
    assert half_written(crash.dsn) == {}
    assert sorted(states) == [
        ("subscription_create", "PAID", 1, SUBSCRIPTIONS),
        ("subscription_cycle", "PAID", 1, SUBSCRIPTIONS),
    ]
    assert count(crash.dsn, "SELECT count(*) FROM invoice_credits") == 2 * SUBSCRIPTIONS
    assert_reconciles(crash.dsn)  # every paid invoice has its subscription row, once


def test_a_request_on_a_subscription_left_mid_step_charges_its_invoice_once(crash: Crash) -> None:
    """The path that does finish a step left mid-way today: any move of the subscription collects its
    unattempted invoice, and the attempt's (invoice, attempt) key gets back a charge already made."""
    with psycopg.connect(crash.dsn) as conn:
        stuck = conn.execute(
            """SELECT i.subscription_id, i.id, (SELECT count(*) FROM charges c WHERE c.invoice_id = i.id)
               FROM invoices i WHERE i.status = 'OPEN' AND i.attempt_count = 0"""
        ).fetchall()
    with httpx.Client(base_url=crash.gateway.base_url, timeout=15.0) as client:
        for subscription_id, _, _ in stuck:
            touched = client.patch(
                f"{API}/subscriptions/{subscription_id}",
                json={"metadata": {"touched": "1"}},
                headers=crash.merchant.auth,
            )
            assert touched.status_code == 200, touched.text
    with psycopg.connect(crash.dsn) as conn:
        for _, invoice_id, charges_before in stuck:
            row = conn.execute(
                """SELECT i.status, i.attempt_count, i.charge_id, array_agg(c.id)
                   FROM invoices i JOIN charges c ON c.invoice_id = i.id WHERE i.id = %s
                   GROUP BY i.id""",
                (invoice_id,),
            ).fetchone()
            assert row is not None and row[:2] == ("PAID", 1), row
            assert row[3] == [row[2]]  # one charge: the one made before the kill if there was one
            assert charges_before <= 1
    made = sum(1 for *_, before in stuck if before)
    print(f"{len(stuck)} invoices left mid-step ({made} already charged), each charged once when touched")
    assert half_written(crash.dsn) == {}
    assert count(crash.dsn, "SELECT count(*) FROM invoices WHERE status <> 'PAID'") == 0
    assert count(crash.dsn, "SELECT count(*) FROM invoice_credits") == 2 * SUBSCRIPTIONS
    assert_reconciles(crash.dsn)
