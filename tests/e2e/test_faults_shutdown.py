"""Graceful shutdown: SIGTERM lets the request in flight finish, refuses new ones with a 503, releases
every entity lease (rather than leaving it to its TTL) and exits 0; a gateway does the same for HTTP.

A request is held in flight deterministically: the test takes the charge's lease in Redis itself, so
the core's actor waits for it; letting go of the lease lets the request finish.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.api_client import API, CARD_OK, Merchant, authorized_charge, create_charge, sign_up
from tests.support.private_services import PrivateRedis, fault_env, private_redis, wait_until
from tests.support.processes import RunningProcess, free_port, start_core, start_gateway
from tests.support.reconcile import assert_reconciles

pytestmark = pytest.mark.e2e

# Leases far longer than the test: a lease gone after the shutdown was released, not expired.
SHUTDOWN_ENV = {
    "LEASE_TTL_MS": "60000",
    "LEASE_WAIT_SECONDS": "20",
    "ACTOR_IDLE_SECONDS": "60",  # actors (and their leases) stay until the shutdown stops them
    "ASK_TIMEOUT_SECONDS": "25",
    "IDEMPOTENCY_CLAIM_SECONDS": "30",
    "CORE_TIMEOUT_SECONDS": "30",
}


@dataclass
class Stack:
    env: dict[str, str]
    redis: PrivateRedis
    core: RunningProcess
    gateway: RunningProcess
    metrics_url: str
    merchant: Merchant

    def lease_key(self, charge_id: str) -> str:
        return f"{self.env['REDIS_NAMESPACE']}:lease:charge:{charge_id}"

    def charge_leases(self) -> list[bytes]:
        client = self.redis.client()
        try:
            return list(client.scan_iter(match=f"{self.env['REDIS_NAMESPACE']}:lease:charge:*"))
        finally:
            client.close()

    def contended(self) -> float:
        """core_lease_contended_total: takes that found the lease held (our request is waiting)."""
        for line in httpx.get(self.metrics_url, timeout=2.0).text.splitlines():
            if line.startswith("core_lease_contended_total "):
                return float(line.split()[1])
        return 0.0


@pytest.fixture
def stack(stack_env: dict[str, str], database_url: str) -> Iterator[Stack]:
    with private_redis() as redis:
        env = fault_env(stack_env, database_url, redis.url, **SHUTDOWN_ENV)
        metrics = f"127.0.0.1:{free_port()}"
        core = start_core({**env, "CORE_METRICS_ADDR": metrics})
        gateway: RunningProcess | None = None
        stack: Stack | None = None
        try:
            gateway = start_gateway(env, [core.address])
            with httpx.Client(base_url=gateway.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            stack = Stack(env, redis, core, gateway, f"http://{metrics}/metrics", merchant)
            yield stack
        finally:
            if gateway is not None:
                gateway.stop()
            core.stop()
            if stack is not None:
                stack.core.stop()  # tests replace the core they stopped


class Held:
    """A checkout payment sent in a thread while the test holds the (still pending, never activated)
    charge's lease, so the request stays in flight until `let_go`."""

    def __init__(self, stack: Stack, charge_id: str) -> None:
        self.stack = stack
        self.charge_id = charge_id
        self.response: httpx.Response | None = None
        self.error: BaseException | None = None
        before = stack.contended()
        client = stack.redis.client()
        try:
            assert client.set(stack.lease_key(charge_id), b"test-holder", nx=True, px=60_000)
        finally:
            client.close()
        self._thread = threading.Thread(target=self._send, daemon=True)
        self._thread.start()
        wait_until(lambda: stack.contended() > before, timeout=10.0, what="the capture to wait for the lease")

    def _send(self) -> None:
        try:
            self.response = httpx.post(
                f"{self.stack.gateway.base_url}/checkout/{self.charge_id}/complete",
                json={"paymentMethod": "card", "paymentMethodDetails": CARD_OK},
                timeout=40.0,
            )
        except httpx.HTTPError as exc:
            self.error = exc

    def let_go(self) -> httpx.Response:
        client = self.stack.redis.client()
        try:
            client.delete(self.stack.lease_key(self.charge_id))
        finally:
            client.close()
        self._thread.join(30.0)
        assert self.error is None and self.response is not None, self.error
        return self.response


def test_sigterm_core_finishes_in_flight_request_and_releases_leases(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        idle = authorized_charge(client, stack.merchant)["id"]
        busy = create_charge(client, stack.merchant)["id"]
    assert stack.charge_leases() == [stack.lease_key(idle).encode()]  # its actor stays active, lease held

    held = Held(stack, busy)
    stack.core.process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert stack.core.is_running(), "the core exited with a request in flight"
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        refused = client.get(f"{API}/charges/{idle}", headers=stack.merchant.auth)
    assert refused.status_code == 503 and refused.json()["error"]["type"] == "api_error", refused.text

    response = held.let_go()
    assert response.status_code == 200 and response.json()["success"] is True, response.text
    assert stack.core.process.wait(10.0) == 0
    # Both leases (the idle actor's and the one the in-flight payment took) were released at shutdown,
    # a minute before their TTL.
    assert stack.charge_leases() == []
    assert '"core stopped"' in stack.core.log_text()

    stack.core = start_core(
        {**stack.env, "CORE_METRICS_ADDR": f"127.0.0.1:{free_port()}"}, port=stack.core.port
    )
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        wait_until(
            lambda: client.get(f"{API}/charges/{busy}", headers=stack.merchant.auth).status_code == 200,
            timeout=10.0,
            what="the gateway to use the new core",
        )
        charge = client.get(f"{API}/charges/{busy}", headers=stack.merchant.auth).json()
        assert charge["status"] == "authorized"
        # Nothing is locked: the new core acts on both charges at once, without waiting for a TTL.
        for charge_id in (idle, busy):
            started = time.monotonic()
            capture = client.post(f"{API}/charges/{charge_id}/capture", json={}, headers=stack.merchant.auth)
            assert capture.status_code == 200 and time.monotonic() - started < 2.0, capture.text
    assert_reconciles(stack.env["DATABASE_URL"])


def test_sigterm_gateway_finishes_in_flight_request(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        charge_id = create_charge(client, stack.merchant)["id"]
    held = Held(stack, charge_id)
    stack.gateway.process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert stack.gateway.is_running(), "the gateway exited with a request in flight"
    response = held.let_go()
    assert response.status_code == 200 and response.json()["success"] is True, response.text
    assert stack.gateway.process.wait(10.0) == 0


def test_sigterm_core_past_its_grace_answers_503_and_leaves_nothing_locked(stack: Stack) -> None:
    """A request still waiting when SHUTDOWN_GRACE_SECONDS runs out is cut off with a clear 503 (it never
    ran), the core still exits promptly, and no lease of its own survives it."""
    stack.core.stop()
    stack.core = start_core(
        {**stack.env, "CORE_METRICS_ADDR": stack.metrics_url.split("/")[2], "SHUTDOWN_GRACE_SECONDS": "1"},
        port=stack.core.port,
    )
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        wait_until(lambda: client.get("/healthz").status_code == 200, timeout=10.0, what="the new core")
        idle = authorized_charge(client, stack.merchant)["id"]
        stuck = create_charge(client, stack.merchant)["id"]
    held = Held(stack, stuck)
    stopping = time.monotonic()
    stack.core.process.send_signal(signal.SIGTERM)
    assert stack.core.process.wait(10.0) == 0
    exited = time.monotonic() - stopping
    print(f"core exited {exited:.2f}s after SIGTERM; log {stack.core.log_path}")
    # The RPC grace (1 s) and no more: the actor still waiting for the held lease stops waiting at once
    # (it used to poll on through the actors' own 5 s grace).
    assert exited < 3.5
    response = held.let_go()
    assert response.status_code == 503, response.text
    assert response.json()["error"]["type"] == "api_error", response.text
    # Only the test's own hold was left; the idle actor's lease was released.
    assert stack.charge_leases() == []
    stack.core = start_core(
        {**stack.env, "CORE_METRICS_ADDR": f"127.0.0.1:{free_port()}"}, port=stack.core.port
    )
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        wait_until(lambda: client.get("/healthz").status_code == 200, timeout=10.0, what="the new core")
        assert client.get(f"{API}/charges/{stuck}", headers=stack.merchant.auth).json()["status"] == "pending"
        paid = client.post(
            f"/checkout/{stuck}/complete", json={"paymentMethod": "card", "paymentMethodDetails": CARD_OK}
        )
        assert paid.status_code == 200 and paid.json()["success"] is True, paid.text
        assert (
            client.post(f"{API}/charges/{idle}/capture", json={}, headers=stack.merchant.auth).status_code
            == 200
        )
    assert_reconciles(stack.env["DATABASE_URL"])
