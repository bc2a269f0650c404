"""Redis Sentinel failover under live traffic (REDIS_SENTINELS, DESIGN §10.8): the master killed, a
replica promoted by three sentinels, and two cores and two gateways following it within 10 s.

Gateway A talks only to core 1 and gateway B only to core 2, and both send one-cent refunds of the same
charges, so the two cores contend for the same entity leases. A lease written to the old master just
before it died may be missing on the new one (replication is asynchronous), so for a moment a second
core can take an entity the first still thinks it owns: the fence in PostgreSQL must keep that stale
owner from writing. Afterwards every write is resent with its key until it succeeds, and each refund
and create must be in the tables exactly once.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.api_client import Merchant, captured_charges, sign_up
from tests.support.fault_traffic import Outcome, Traffic, settle, summary, unexpected
from tests.support.private_services import PrivatePostgres, fault_env, private_postgres, wait_until
from tests.support.processes import RunningProcess, gateway_healthy, start_core, start_gateway
from tests.support.reconcile import assert_reconciles
from tests.support.redis_sentinel import SERVICE, Sentinels, redis_with_sentinels
from tests.support.table_audit import count, half_written

pytestmark = pytest.mark.e2e

FOLLOW_WITHIN_SECONDS = 10.0
REPLICA_LAG_SECONDS = 0.5
# "timeout": gateway A's calls to the paused core 1 end at CORE_TIMEOUT_SECONDS.
OUTAGE_CODES = frozenset({"service_unavailable", "timeout"})


@dataclass
class Stack:
    postgres: PrivatePostgres
    dsn: str
    sentinels: Sentinels
    cores: list[RunningProcess]
    gateways: list[RunningProcess]
    merchant: Merchant


def _first_refund(traffic: Traffic, base: str, since: float) -> float:
    """When the first refund sent through `base` after `since` succeeded (waited for up to 10 s)."""

    def refunded(o: Outcome) -> bool:
        return o.ok and o.op == "refund" and o.base_url == base and o.started >= since

    traffic.wait_for(refunded, since=since, timeout=FOLLOW_WITHIN_SECONDS)
    return min(o.ended for o in traffic.snapshot() if refunded(o))


@pytest.fixture
def stack(stack_env: dict[str, str]) -> Iterator[Stack]:
    with private_postgres() as postgres, redis_with_sentinels() as sentinels:
        dsn = postgres.create_database("failover_sentinel")
        # REDIS_URL names no server: only its database index counts once Sentinel names the master.
        env = fault_env(
            stack_env,
            dsn,
            "redis://sentinel-managed/0",
            REDIS_SENTINELS=sentinels.addresses,
            REDIS_SENTINEL_SERVICE=SERVICE,
        )
        started: list[RunningProcess] = []
        try:
            cores = [start_core(env) for _ in range(2)]
            started += cores
            gateways = [start_gateway(env, [core.address]) for core in cores]
            started += gateways
            with httpx.Client(base_url=gateways[0].base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            yield Stack(postgres, dsn, sentinels, cores, gateways, merchant)
        finally:
            for process in reversed(started):
                process.stop()


def test_master_killed_and_replica_promoted_under_contended_writes(stack: Stack) -> None:
    a, b = (gateway.base_url for gateway in stack.gateways)
    stale_core = stack.cores[0]
    charge_ids = captured_charges(a, stack.merchant, 3)
    traffic = Traffic([a, b], stack.merchant.auth, charge_ids, workers=2).start()
    try:
        for base in (a, b):
            _first_refund(traffic, base, 0.0)
        old_master = stack.sentinels.master.port
        # The replica misses the master's last half second (leases taken, renewed, released): what an
        # asynchronous replica lagging at the crash loses. Core 1 is paused through the whole switch
        # with its actors' turns in flight: on the new master its leases may be gone or expired, core 2
        # takes the same charges, and core 1 wakes up believing it still owns them.
        stack.sentinels.cut_replication()
        time.sleep(REPLICA_LAG_SECONDS)
        stale_core.process.send_signal(signal.SIGSTOP)
        killed = time.monotonic()
        try:
            stack.sentinels.master.stop()
            stack.sentinels.thaw_replica()
            promoted_after = wait_until(
                lambda: stack.sentinels.master_port() not in (None, old_master),
                FOLLOW_WITHIN_SECONDS,
                interval=0.02,
                what="a new master named by Sentinel",
            )
            promoted = killed + promoted_after
            core_2_back = _first_refund(traffic, b, promoted) - promoted
            # Core 2 has written the contended charges under its own fences by now.
            traffic.wait_for(lambda o: o.ok and o.op == "refund" and o.base_url == b, count=4, since=promoted)
        finally:
            stale_core.process.send_signal(signal.SIGCONT)
        resumed = time.monotonic()
        core_1_back = _first_refund(traffic, a, resumed) - resumed
        # The gateways follow: their health check, which pings Redis, answers 200 again.
        healthy = []
        for base in (a, b):
            wait_until(lambda base=base: gateway_healthy(base), FOLLOW_WITHIN_SECONDS, what=f"{base} healthy")
            healthy.append(time.monotonic() - promoted)
        traffic.wait_for(lambda o: o.ok and o.started >= resumed + core_1_back + 1.0, count=20)
    finally:
        outcomes = traffic.stop()
        print("\n" + summary(outcomes))

    new_master = stack.sentinels.replica.client()
    keys_on_new_master = new_master.dbsize()
    new_master.close()
    refused = sum(1 for o in outcomes if o.status == 503)
    refused_before = sum(1 for o in outcomes if o.status == 503 and o.ended < killed)
    fenced = sum(core.log_text().count("StaleFence") for core in stack.cores)
    renewals_lost = stale_core.log_text().count("lease renew failed")
    print(
        f"new master named {promoted_after:.2f}s after the kill; refunds through core 2 again "
        f"{core_2_back:.2f}s after it, through core 1 (paused through the switch) {core_1_back:.2f}s after "
        f"its resumption; gateways healthy {healthy[0]:.2f}s / "
        f"{healthy[1]:.2f}s after it; {refused} answers 503 ({refused_before} before the kill); {fenced} "
        f"writes of a stale owner fenced, {renewals_lost} lost renewals on core 1; "
        f"{keys_on_new_master} keys on the new master"
    )
    assert core_2_back < FOLLOW_WITHIN_SECONDS and core_1_back < FOLLOW_WITHIN_SECONDS
    assert max(healthy) < FOLLOW_WITHIN_SECONDS
    assert keys_on_new_master > 0
    bad = unexpected(outcomes, OUTAGE_CODES)
    assert not bad, [(o.op, o.status, o.payload) for o in bad][:5]

    # Each write resent with its key until it succeeds; then each is in the tables exactly once.
    final = settle(outcomes, stack.merchant.auth, a)
    refunds = {o.key: o for o in outcomes if o.op == "refund"}
    creates = {o.key: o for o in outcomes if o.op == "create"}
    assert set(final) == set(refunds) | set(creates)
    for charge_id in charge_ids:
        issued = sum(1 for o in refunds.values() if f"/charges/{charge_id}/" in o.path)
        refunded = count(stack.dsn, "SELECT amount_refunded FROM charges WHERE id = %s", charge_id)
        assert refunded == issued, f"{charge_id}: {issued} one-cent refunds answered, {refunded} applied"
    made = count(stack.dsn, "SELECT count(*) FROM charges WHERE description = ANY(%s)", list(creates))
    assert made == len(creates), f"{len(creates)} creations answered, {made} charges exist"
    assert half_written(stack.dsn) == {}
    assert_reconciles(stack.dsn)
