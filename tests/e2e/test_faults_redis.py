"""Redis killed, restarted and frozen under live traffic: clear 503s while it is gone, no hang, no wrong
answer, and recovery without restarting the core or a gateway.

Two gateways share one core. Gateway A uses the core's Redis for its rate limits (the default
deployment: one Redis) and counts them in-process while it is down; gateway B counts on a Redis of its
own. Either way the requests get past the gateway and show what the core does without Redis: entity
leases cannot be taken, so writes through an actor answer 503, while reads, which need no lease, keep
answering from PostgreSQL.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, authorized_charge, captured_charges, sign_up
from tests.support.fault_traffic import Outcome, Traffic, recovery_seconds, settle, summary, unexpected
from tests.support.private_services import (
    PrivatePostgres,
    PrivateRedis,
    fault_env,
    private_postgres,
    private_redis,
)
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles
from tests.support.table_audit import count, half_written

pytestmark = pytest.mark.e2e

OUTAGE_CODES = frozenset({"service_unavailable"})
# The gateway's Redis calls time out after 1 s (2 s for the whole rate-limit script); the core's lease
# calls after 1 s. Nothing may take much longer than that while Redis is dead or frozen.
MAX_ANSWER_SECONDS = 3.5
RECOVERY_SECONDS = 10.0
LEASE_RENEW_SECONDS = 2.0 / 3  # LEASE_TTL_MS (private_services.FAST_FAILURE_ENV) / 3


@dataclass
class Stack:
    postgres: PrivatePostgres
    dsn: str
    redis: PrivateRedis  # the core's and gateway A's
    core: RunningProcess
    gateway_a: RunningProcess
    gateway_b: RunningProcess
    merchant: Merchant

    def captured_charges(self, n: int = 4) -> list[str]:
        """Fresh captured charges for one test, so its refund counts start from zero."""
        return captured_charges(self.gateway_a.base_url, self.merchant, n)


@pytest.fixture(scope="module")
def stack(stack_env: dict[str, str]) -> Iterator[Stack]:
    with private_postgres() as postgres, private_redis() as redis, private_redis() as redis_b:
        dsn = postgres.create_database("faults_redis")
        env = fault_env(stack_env, dsn, redis.url)
        core = start_core(env)
        started = [core]
        try:
            gateway_a = start_gateway(env, [core.address])
            started.append(gateway_a)
            gateway_b = start_gateway({**env, "REDIS_URL": redis_b.url}, [core.address])
            started.append(gateway_b)
            with httpx.Client(base_url=gateway_a.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            yield Stack(postgres, dsn, redis, core, gateway_a, gateway_b, merchant)
        finally:
            for process in reversed(started):
                process.stop()


def _during(
    outcomes: list[Outcome], start: float, end: float, base_url: str, op: str | None = None
) -> list[Outcome]:
    """Requests that began and ended inside [start, end] on one gateway."""
    return [
        o
        for o in outcomes
        if o.started >= start and o.ended <= end and o.base_url == base_url and (op is None or o.op == op)
    ]


def _assert_recovered_exactly_once(stack: Stack, charge_ids: list[str], outcomes: list[Outcome]) -> None:
    """Every write resent with its key until it succeeds; the tables then hold each exactly once."""
    final = settle(outcomes, stack.merchant.auth, stack.gateway_a.base_url)
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


def test_redis_killed_and_restarted_mid_traffic(stack: Stack) -> None:
    a, b = stack.gateway_a.base_url, stack.gateway_b.base_url
    charge_ids = stack.captured_charges()
    traffic = Traffic([a, b], stack.merchant.auth, charge_ids, workers=2).start()
    try:
        traffic.wait_for(lambda o: o.ok and o.op == "refund", count=4)
        down = time.monotonic()
        stack.redis.stop()
        settled_down = down + 0.5  # requests in flight at the kill may still have finished normally
        # Both failure paths show up: the gateway's rate limiter (A) and the core's entity leases (B).
        for base, op in ((a, "read"), (a, "refund"), (b, "read"), (b, "refund")):

            def failing(o: Outcome, base: str = base, op: str = op) -> bool:
                return o.started >= down + LEASE_RENEW_SECONDS + 0.3 and o.base_url == base and o.op == op

            traffic.wait_for(failing, count=3, since=down)
        up = time.monotonic()
        stack.redis.start()
        restarted = time.monotonic()
        # No restart of anything but Redis: each gateway answers every kind of request again.
        for base in (a, b):
            for op in ("read", "create", "refund"):

                def answers_again(o: Outcome, base: str = base, op: str = op) -> bool:
                    return o.ok and o.base_url == base and o.op == op

                traffic.wait_for(
                    answers_again,
                    count=2,
                    since=up,
                    timeout=RECOVERY_SECONDS,
                )
    finally:
        outcomes = traffic.stop()
        print(summary(outcomes))
        if stack.redis.process is None:
            stack.redis.start()  # a failed wait must not leave the next test without Redis

    print(f"recovered {recovery_seconds(outcomes, restarted):.2f}s after the restart")
    assert not unexpected(outcomes, OUTAGE_CODES), [
        (o.op, o.status, o.payload) for o in unexpected(outcomes, OUTAGE_CODES)
    ][:5]
    slowest = max(outcomes, key=lambda o: o.seconds)
    assert slowest.seconds < MAX_ANSWER_SECONDS, (slowest.op, slowest.status, slowest.seconds)
    # Gateway A counts its rate limits in-process while Redis is down: reads keep answering.
    assert all(o.ok for o in _during(outcomes, settled_down, up, a, op="read")), (
        "gateway A refused reads without Redis"
    )
    writes_a = [o for o in _during(outcomes, down + LEASE_RENEW_SECONDS + 0.3, up, a) if o.op == "refund"]
    assert writes_a and all(o.status == 503 for o in writes_a), "a refund ran without its entity lease"
    # An actor that already holds its lease keeps serving until its next renewal fails (every TTL/3,
    # 0.67 s here): no other core can take the lease meanwhile, and the fence guards the rest.
    writes_b = [o for o in _during(outcomes, down + LEASE_RENEW_SECONDS + 0.3, up, b) if o.op == "refund"]
    assert writes_b and all(o.status == 503 for o in writes_b), "a refund ran without its entity lease"
    assert all(o.ok for o in _during(outcomes, settled_down, up, b, op="read")), (
        "reads need no Redis in the core"
    )
    for outcome in outcomes:
        if outcome.status == 503:
            assert outcome.error is not None and outcome.error["type"] == "api_error"
    _assert_recovered_exactly_once(stack, charge_ids, outcomes)


def test_redis_frozen_then_thawed_answers_503_in_bounded_time(stack: Stack) -> None:
    """A Redis that accepts connections and never answers (SIGSTOP) must cost a time-out, not a hang."""
    a, b = stack.gateway_a.base_url, stack.gateway_b.base_url
    charge_ids = stack.captured_charges()
    traffic = Traffic([a, b], stack.merchant.auth, charge_ids, workers=2).start()
    try:
        traffic.wait_for(lambda o: o.ok and o.op == "refund", count=4)
        frozen = time.monotonic()
        stack.redis.freeze()
        traffic.wait_for(lambda o: o.status == 503 and o.base_url == a, count=3, since=frozen)
        traffic.wait_for(
            lambda o: o.status == 503 and o.base_url == b and o.op == "refund", count=2, since=frozen
        )
        thawed = time.monotonic()
        stack.redis.thaw()
        for base in (a, b):

            def refunds_again(o: Outcome, base: str = base) -> bool:
                return o.ok and o.base_url == base and o.op == "refund"

            traffic.wait_for(
                refunds_again,
                count=2,
                since=thawed,
                timeout=RECOVERY_SECONDS,
            )
    finally:
        stack.redis.thaw()
        outcomes = traffic.stop()
        print(summary(outcomes))

    assert not unexpected(outcomes, OUTAGE_CODES), [
        (o.op, o.status, o.payload) for o in unexpected(outcomes, OUTAGE_CODES)
    ][:5]
    slowest = max(outcomes, key=lambda o: o.seconds)
    assert slowest.seconds < MAX_ANSWER_SECONDS, (slowest.op, slowest.status, slowest.seconds)
    _assert_recovered_exactly_once(stack, charge_ids, outcomes)


RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def test_reads_answer_from_postgres_while_redis_is_down_and_writes_return_after(stack: Stack) -> None:
    """Through gateway A (rate limits in the dead Redis): every read kind 200 with its rate-limit
    headers, a capture 503 api_error, and the same capture succeeds once Redis is back."""
    auth = stack.merchant.auth
    with httpx.Client(base_url=stack.gateway_a.base_url, timeout=15.0) as client:
        charge = authorized_charge(client, stack.merchant)
        events = client.get(f"{API}/events", headers=auth).json()["data"]
        assert events
        reads = (
            f"{API}/charges/{charge['id']}",
            f"{API}/charges",
            f"/checkout/{charge['id']}",
            f"{API}/events",
            f"{API}/events/{events[0]['id']}",
            f"{API}/webhooks",
        )
        stack.redis.stop()
        try:
            time.sleep(LEASE_RENEW_SECONDS + 0.3)  # the charge's actor loses its lease at its next renewal
            for path in reads:
                r = client.get(path, headers={**auth, "Accept": "application/json"})
                assert r.status_code == 200, (path, r.status_code, r.text[:200])
                assert all(name in r.headers for name in RATE_LIMIT_HEADERS), (path, dict(r.headers))
            assert client.get(f"{API}/charges/{charge['id']}", headers=auth).json()["status"] == "authorized"
            capture = f"{API}/charges/{charge['id']}/capture"
            key = {"Idempotency-Key": f"capture-{charge['id']}"}
            refused = client.post(capture, json={}, headers={**auth, **key})
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["type"] == "api_error"
        finally:
            stack.redis.start()
        deadline = time.monotonic() + RECOVERY_SECONDS
        while True:
            captured = client.post(capture, json={}, headers={**auth, **key})
            if captured.status_code != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert captured.status_code == 200, captured.text
        assert captured.json()["status"] == "captured"
    assert_reconciles(stack.dsn)
