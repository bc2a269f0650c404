"""A core SIGKILLed with a refund in flight: the retry through another core is answered within seconds,
not after the claim's lease, and the refund exists exactly once (docs/running.md).

The refund is caught in flight by holding its charge's row lock from the test, so its statement blocks
inside PostgreSQL with the Idempotency-Key claim held. Killing the core then leaves a claim that names a
core which no longer beats: the retry takes it over as soon as the heartbeat lapses.
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

CLAIM_SECONDS = "30"  # the lease alone would answer the retry only after 30 s
ANSWER_WITHIN = 5.0  # seconds from the kill to the retry's definitive answer
KEY = "refund-in-flight"
AMOUNT = 2_500


@pytest.fixture
def cluster(stack_env: dict[str, str]) -> Iterator[Cluster[Merchant]]:
    # The heartbeat settings stay at their defaults: they are what the 5 s bound is about.
    with two_cores(stack_env, "faults_claims", sign_up, IDEMPOTENCY_CLAIM_SECONDS=CLAIM_SECONDS) as cluster:
        yield cluster


def backend_alive(conn: psycopg.Connection[tuple[object, ...]], pid: int) -> bool:
    return conn.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() is not None


def test_a_refund_in_flight_on_a_killed_core_is_answered_through_another_core_within_seconds(
    cluster: Cluster[Merchant],
) -> None:
    with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
        charge_id = authorized_charge(client, cluster.merchant)["id"]
        captured = client.post(f"{API}/charges/{charge_id}/capture", json={}, headers=cluster.merchant.auth)
        assert captured.status_code == 200, captured.text
    time.sleep(0.5)  # the survivor's actor idles out and frees the charge's lease
    headers = {**cluster.merchant.auth, "Idempotency-Key": KEY}
    body = {"amount": AMOUNT, "reason": "other"}
    first: dict[str, object] = {}

    def refund_through_the_doomed_core() -> None:
        with httpx.Client(base_url=cluster.gateway_doomed.base_url, timeout=20.0) as client:
            try:
                first["response"] = client.post(
                    f"{API}/charges/{charge_id}/refunds", json=body, headers=headers
                )
            except httpx.HTTPError as exc:
                first["response"] = exc

    with psycopg.connect(cluster.dsn, autocommit=True) as watcher, psycopg.connect(cluster.dsn) as blocker:
        blocker.execute("SELECT 1 FROM charges WHERE id = %s FOR UPDATE", (charge_id,))
        sender = threading.Thread(target=refund_through_the_doomed_core)
        sender.start()
        wait_until(lambda: blocked_charge_update(watcher) is not None, 5.0, what="the refund to block")
        backend = blocked_charge_update(watcher)
        assert backend is not None
        os.kill(cluster.doomed.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        assert cluster.doomed.process.wait(10) == -signal.SIGKILL
        # PostgreSQL notices the dead client (client_connection_check_interval) and cancels its
        # statement: nothing of the refund committed, its claim is still `in_progress`.
        gone = wait_until(lambda: not backend_alive(watcher, backend), 3.0, what="the dead core's backend")
        blocker.rollback()
        claim = watcher.execute("SELECT state FROM idempotency_keys WHERE key = %s", (KEY,)).fetchone()
        assert claim == ("in_progress",), claim
        print(f"the dead core's statement was cancelled {gone:.2f}s after the kill")

        with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
            path = f"{API}/charges/{charge_id}/refunds"
            response, answers = retry_until_answered(
                client, path, body, headers, 201, killed_at, ANSWER_WITHIN
            )
        answered = time.monotonic() - killed_at
        print(f"retry answered {answered:.2f}s after the kill ({len(answers)} attempts: {answers})")
        assert response.json()["amount"] == AMOUNT

        sender.join(20)
        # The dead core's client heard an error (its core vanished), never a success.
        dead_answer = first["response"]
        assert not isinstance(dead_answer, httpx.Response) or dead_answer.status_code >= 500, dead_answer

        refunds = watcher.execute("SELECT amount FROM refunds WHERE charge_id = %s", (charge_id,)).fetchall()
        assert refunds == [(AMOUNT,)]
        charge = watcher.execute("SELECT amount_refunded FROM charges WHERE id = %s", (charge_id,)).fetchone()
        assert charge == (AMOUNT,)
        claim = watcher.execute("SELECT state FROM idempotency_keys WHERE key = %s", (KEY,)).fetchone()
        assert claim == ("completed",)

    # Replayed from now on, through either way in.
    with httpx.Client(base_url=cluster.gateway_survivor.base_url, timeout=15.0) as client:
        again = client.post(f"{API}/charges/{charge_id}/refunds", json=body, headers=headers)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true", again.text
    assert again.json() == response.json()
    assert_reconciles(cluster.dsn)
