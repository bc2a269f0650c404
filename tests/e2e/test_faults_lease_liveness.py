"""A core SIGKILLed with a capture in flight, at the production lease timers: the retry through another
core gets a definitive answer within 5 s of the kill and the charge is captured once (DESIGN §10.9).

The dead core holds both the capture's Idempotency-Key claim and the charge's actor lease (10 s TTL).
The claim follows the core's heartbeat already; the lease must follow it too, or the retry waits out the
TTL — before §10.9 that took two 4 s client time-outs, 10.6 s in a chaos run. The capture is caught in
flight by holding the charge's row lock from the test, so its statement blocks inside PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, authorized_charge, sign_up
from tests.support.private_services import fault_env, private_postgres, private_redis, wait_until
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles

pytestmark = pytest.mark.e2e

ANSWER_WITHIN = 5.0  # seconds from the kill to the retry's definitive answer
KEY = "capture-in-flight"
CAPTURE = 6_000  # of 10 000: a second capture would be refused, so "once" shows

# The production defaults of the timers this is about (core config): a lease outlives the 5 s bound.
PRODUCTION_TIMERS = {
    "LEASE_TTL_MS": "10000",
    "LEASE_WAIT_SECONDS": "5",
    "ASK_TIMEOUT_SECONDS": "8",
    "CORE_TIMEOUT_SECONDS": "10",
    "IDEMPOTENCY_CLAIM_SECONDS": "30",
}


@dataclass
class Cluster:
    dsn: str
    doomed: RunningProcess
    gateway_doomed: RunningProcess
    gateway_survivor: RunningProcess
    merchant: Merchant


@pytest.fixture
def cluster(stack_env: dict[str, str]) -> Iterator[Cluster]:
    with private_postgres() as postgres, private_redis() as redis:
        dsn = postgres.create_database("faults_leases")
        env = fault_env(stack_env, dsn, redis.url, **PRODUCTION_TIMERS)
        started: list[RunningProcess] = []
        try:
            doomed = start_core({**env, "ACTOR_IDLE_SECONDS": "30"})
            started.append(doomed)
            survivor = start_core(env)
            started.append(survivor)
            gateway_doomed = start_gateway(env, [doomed.address])
            started.append(gateway_doomed)
            gateway_survivor = start_gateway(env, [survivor.address])
            started.append(gateway_survivor)
            with httpx.Client(base_url=gateway_survivor.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            yield Cluster(dsn, doomed, gateway_doomed, gateway_survivor, merchant)
        finally:
            for process in reversed(started):
                process.stop()


def blocked_capture_backend(conn: psycopg.Connection[tuple[object, ...]]) -> int | None:
    row = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE charges%'"
    ).fetchone()
    return int(str(row[0])) if row else None


def test_a_capture_in_flight_on_a_killed_core_is_answered_through_another_core_within_5_s(
    cluster: Cluster,
) -> None:
    with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
        charge_id = authorized_charge(client, cluster.merchant, amount=10_000)["id"]
    time.sleep(0.5)  # the survivor's actor idles out and frees the charge's lease
    headers = {**cluster.merchant.auth, "Idempotency-Key": KEY}
    body = {"amount": CAPTURE}
    first: dict[str, object] = {}

    def capture_through_the_doomed_core() -> None:
        with httpx.Client(base_url=cluster.gateway_doomed.base_url, timeout=20.0) as client:
            try:
                first["response"] = client.post(
                    f"{API}/charges/{charge_id}/capture", json=body, headers=headers
                )
            except httpx.HTTPError as exc:
                first["response"] = exc

    with psycopg.connect(cluster.dsn, autocommit=True) as watcher, psycopg.connect(cluster.dsn) as blocker:
        blocker.execute("SELECT 1 FROM charges WHERE id = %s FOR UPDATE", (charge_id,))
        sender = threading.Thread(target=capture_through_the_doomed_core)
        sender.start()
        wait_until(lambda: blocked_capture_backend(watcher) is not None, 5.0, what="the capture to block")
        os.kill(cluster.doomed.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        assert cluster.doomed.process.wait(10) == -signal.SIGKILL
        blocker.rollback()  # the dead core's statement is cancelled: nothing of the capture committed

        answers: list[int] = []
        with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
            while True:
                elapsed = time.monotonic() - killed_at
                assert elapsed < ANSWER_WITHIN, (
                    f"no definitive answer {elapsed:.1f}s after the kill: {answers}"
                )
                response = client.post(f"{API}/charges/{charge_id}/capture", json=body, headers=headers)
                answers.append(response.status_code)
                if response.status_code == 200:
                    break
                error = response.json()["error"]
                assert (response.status_code, error["code"]) in {
                    (409, "idempotency_key_in_use"),
                    (503, "service_busy"),
                    (503, "service_unavailable"),
                }, response.text
                time.sleep(0.1)
        answered = time.monotonic() - killed_at
        print(f"retry answered {answered:.2f}s after the kill ({len(answers)} attempts: {answers})")
        assert answered < ANSWER_WITHIN
        assert response.json()["amount_captured"] == CAPTURE

        sender.join(25)
        dead_answer = first["response"]
        assert not isinstance(dead_answer, httpx.Response) or dead_answer.status_code >= 500, dead_answer

        charge = watcher.execute(
            "SELECT status, amount_captured FROM charges WHERE id = %s", (charge_id,)
        ).fetchone()
        assert charge == ("captured", CAPTURE), charge
        claim = watcher.execute("SELECT state FROM idempotency_keys WHERE key = %s", (KEY,)).fetchone()
        assert claim == ("completed",)

    with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
        again = client.post(f"{API}/charges/{charge_id}/capture", json=body, headers=headers)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true", again.text
    assert again.json() == response.json()
    assert_reconciles(cluster.dsn)
