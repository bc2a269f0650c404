"""PostgreSQL crashed and restarted under live traffic: 503s while it is gone, recovery without restarting
the core or the gateway, and tables without a half-written charge or an orphaned event afterwards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.api_client import Merchant, captured_charges, sign_up
from tests.support.fault_traffic import Outcome, Traffic, recovery_seconds, settle, summary, unexpected
from tests.support.private_services import PrivatePostgres, fault_env, private_postgres, private_redis
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles
from tests.support.table_audit import count, half_written

pytestmark = pytest.mark.e2e

OUTAGE_CODES = frozenset({"service_unavailable", "timeout"})
RECOVERY_SECONDS = 15.0
# Long enough for psycopg_pool's doubling reconnect delay (1 s, 2 s, 4 s …) to matter: recovery must
# come from the next request, not from the end of a back-off.
OUTAGE_SECONDS = 4.0
# DB_POOL_TIMEOUT_SECONDS (1.5 s) for the first try of a read, again for the gateway's one retry.
MAX_ANSWER_SECONDS = 4.0
MAX_RECOVERY_SECONDS = 2.5


@dataclass
class Stack:
    postgres: PrivatePostgres
    dsn: str
    core: RunningProcess
    gateway: RunningProcess
    merchant: Merchant


@pytest.fixture(scope="module")
def stack(stack_env: dict[str, str]) -> Iterator[Stack]:
    with private_postgres() as postgres, private_redis() as redis:
        dsn = postgres.create_database("faults_postgres")
        env = fault_env(stack_env, dsn, redis.url)
        core = start_core(env)
        gateway = None
        try:
            gateway = start_gateway(env, [core.address])
            with httpx.Client(base_url=gateway.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            yield Stack(postgres, dsn, core, gateway, merchant)
        finally:
            for process in (gateway, core):
                if process is not None:
                    process.stop()


@pytest.mark.parametrize("mode", ["immediate", "fast"])
def test_postgres_restarted_mid_traffic(stack: Stack, mode: str) -> None:
    """`immediate` is a crash (uncommitted work is lost, WAL recovery at start); `fast` disconnects
    every session with an admin shutdown. Either way a write is all there or not there at all."""
    base = stack.gateway.base_url
    charge_ids = captured_charges(stack.gateway.base_url, stack.merchant, 3)
    traffic = Traffic([base], stack.merchant.auth, charge_ids, workers=4).start()
    try:
        traffic.wait_for(lambda o: o.ok and o.op == "refund", count=6)
        down = time.monotonic()
        stack.postgres.stop(mode)
        traffic.wait_for(lambda o: o.status == 503 and o.started >= down + 0.3, count=4, since=down)
        time.sleep(max(0.0, down + OUTAGE_SECONDS - time.monotonic()))
        stack.postgres.start()
        restarted = time.monotonic()
        for op in ("read", "create", "refund"):

            def answers_again(o: Outcome, op: str = op) -> bool:
                return o.ok and o.op == op

            traffic.wait_for(answers_again, count=2, since=restarted, timeout=RECOVERY_SECONDS)
    finally:
        outcomes = traffic.stop()
        print(summary(outcomes))
        if not stack.postgres.is_up():
            stack.postgres.start()  # a failed wait must not leave the next test without PostgreSQL
    recovered = recovery_seconds(outcomes, restarted)
    print(f"recovered {recovered:.2f}s after the restart")
    assert recovered < MAX_RECOVERY_SECONDS

    bad = unexpected(outcomes, OUTAGE_CODES)
    assert not bad, [(o.op, o.status, o.payload, o.transport_error) for o in bad][:5]
    slowest = max(outcomes, key=lambda o: o.seconds)
    assert slowest.seconds < MAX_ANSWER_SECONDS, (slowest.op, slowest.status, slowest.seconds)
    for outcome in outcomes:
        if outcome.status == 503:
            assert outcome.error is not None and outcome.error["type"] == "api_error"

    # A merchant resends each failed write with its key: each then happens exactly once.
    final = settle(outcomes, stack.merchant.auth, base)
    refunds = [o for o in outcomes if o.op == "refund"]
    creates = [o.key for o in outcomes if o.op == "create"]
    assert set(final) == {o.key for o in refunds} | set(creates)
    for charge_id in charge_ids:
        issued = sum(1 for o in refunds if f"/charges/{charge_id}/" in o.path)
        refunded = count(stack.dsn, "SELECT amount_refunded FROM charges WHERE id = %s", charge_id)
        assert refunded == issued, f"{charge_id}: {issued} one-cent refunds answered, {refunded} applied"
    made = count(stack.dsn, "SELECT count(*) FROM charges WHERE description = ANY(%s)", creates)
    assert made == len(creates), f"{len(creates)} creations answered, {made} charges exist"
    assert half_written(stack.dsn) == {}
    assert_reconciles(stack.dsn)
