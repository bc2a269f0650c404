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

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, authorized_charge, sign_up
from tests.support.fault_cluster import Cluster, blocked_charge_update, retry_until_answered, two_cores
from tests.support.private_services import wait_until
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


@pytest.fixture
def cluster(stack_env: dict[str, str]) -> Iterator[Cluster[Merchant]]:
    with two_cores(stack_env, "faults_leases", sign_up, **PRODUCTION_TIMERS) as cluster:
        yield cluster


def test_a_capture_in_flight_on_a_killed_core_is_answered_through_another_core_within_5_s(
    cluster: Cluster[Merchant],
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
        wait_until(lambda: blocked_charge_update(watcher) is not None, 5.0, what="the capture to block")
        os.kill(cluster.doomed.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        assert cluster.doomed.process.wait(10) == -signal.SIGKILL
        blocker.rollback()  # the dead core's statement is cancelled: nothing of the capture committed

        with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
            path = f"{API}/charges/{charge_id}/capture"
            response, answers = retry_until_answered(
                client, path, body, headers, 200, killed_at, ANSWER_WITHIN
            )
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
