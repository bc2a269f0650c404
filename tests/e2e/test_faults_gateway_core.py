"""A gateway whose core is gone or frozen answers a 503 `api_error` within a bounded time, never hangs,
and serves again as soon as the core is back, without a restart of its own."""

from __future__ import annotations

import signal
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, create_charge, sign_up
from tests.support.private_services import FAST_FAILURE_ENV, wait_until
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.table_audit import count

pytestmark = pytest.mark.e2e

CORE_TIMEOUT = 2.0  # CORE_TIMEOUT_SECONDS of these gateways: a frozen core costs each request this long
# A refused connection fails at once; gRPC's reconnect back-off must not outlast this after the core returns.
MAX_RECOVERY_SECONDS = 2.0
OUTAGE_SECONDS = 5.0  # with gRPC's default back-off (up to 120 s) the gateway came back up to ~7 s late


@dataclass
class Pair:
    env: dict[str, str]
    core: RunningProcess
    gateway: RunningProcess
    merchant: Merchant
    charge_id: str


@pytest.fixture
def pair(stack_env: dict[str, str], client: httpx.Client) -> Iterator[Pair]:
    # Nothing here breaks PostgreSQL or Redis, so the session's database and Redis namespace serve. The
    # merchant signs up through the session's gateway: a sign-up's password hashing can outlast this
    # pair's 2 s core time-out on a machine busy with the rest of the suite, and it is not what is tested.
    env = {**stack_env, **FAST_FAILURE_ENV, "CORE_TIMEOUT_SECONDS": str(CORE_TIMEOUT)}
    merchant = sign_up(client)
    core = start_core(env)
    gateway: RunningProcess | None = None
    holder: Pair | None = None
    try:
        gateway = start_gateway(env, [core.address])
        with httpx.Client(base_url=gateway.base_url, timeout=15.0) as pair_client:
            charge_id = create_charge(pair_client, merchant)["id"]
        holder = Pair(env, core, gateway, merchant, charge_id)
        yield holder
    finally:
        if gateway is not None:
            gateway.stop()
        cores = [core] if holder is None or holder.core is core else [core, holder.core]
        for process in cores:
            if process.is_running():
                process.process.send_signal(signal.SIGCONT)  # a frozen core must be able to stop
            process.stop()


def _timed(client: httpx.Client, method: str, path: str, **kwargs: object) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
    return response, time.monotonic() - started


def _requests(pair: Pair) -> list[tuple[str, str, dict[str, object]]]:
    """One of each kind: an authenticated read and write, a public checkout read, an anonymous sign-up."""
    return [
        ("GET", f"{API}/charges/{pair.charge_id}", {"headers": pair.merchant.auth}),
        (
            "POST",
            f"{API}/charges",
            {
                "headers": pair.merchant.auth,
                "json": {"amount": 500, "currency": "usd", "return_url": "https://s.example/"},
            },
        ),
        ("GET", f"/checkout/{pair.charge_id}", {}),
        (
            "POST",
            "/api/v1/merchants",
            {"json": {"email": f"x{uuid.uuid4().hex[:10]}@example.com", "password": "correct horse"}},
        ),
    ]


def _assert_503(response: httpx.Response, codes: set[str]) -> None:
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["type"] == "api_error" and error["code"] in codes, error
    assert set(error) >= {"type", "code", "message", "param", "doc_url"}


def test_core_down_answers_503_at_once_and_recovers_when_it_returns(pair: Pair) -> None:
    port = pair.core.port
    pair.core.kill()
    with httpx.Client(base_url=pair.gateway.base_url, timeout=CORE_TIMEOUT * 3) as client:
        # Several seconds down, so gRPC's reconnect back-off has grown before the core comes back.
        down_until = time.monotonic() + OUTAGE_SECONDS
        slowest = 0.0
        while time.monotonic() < down_until:
            for method, path, kwargs in _requests(pair):
                response, seconds = _timed(client, method, path, **kwargs)
                _assert_503(response, {"service_unavailable"})
                slowest = max(slowest, seconds)
            health, seconds = _timed(client, "GET", "/healthz")
            assert health.status_code == 503 and health.json()["checks"]["core"] == "unavailable"
            slowest = max(slowest, seconds)
            time.sleep(0.2)
        assert slowest < 1.0, f"a refused core took {slowest:.2f}s to answer"

        pair.core = start_core(pair.env, port=port)  # the same address: the gateway is not told anything
        back = time.monotonic()
        recovered = wait_until(
            lambda: (
                client.get(f"{API}/charges/{pair.charge_id}", headers=pair.merchant.auth).status_code == 200
            ),
            timeout=15.0,
            interval=0.05,
            what="the gateway to reach the restarted core",
        )
        print(f"core refused for {back - down_until + OUTAGE_SECONDS:.1f}s; back {recovered:.2f}s after it")
        assert recovered < MAX_RECOVERY_SECONDS
        for kind in range(len(_requests(pair))):
            method, path, kwargs = _requests(pair)[kind]
            response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
            if _timed_out(response):
                # Once more, afresh (a new sign-up e-mail): a sign-up's password hashing (a niced pool)
                # can outlast this pair's 2 s core time-out on a machine busy with the rest of the suite,
                # and recovery is what is tested.
                method, path, kwargs = _requests(pair)[kind]
                response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
            assert response.status_code < 300, response.text


def _timed_out(response: httpx.Response) -> bool:
    return response.status_code == 503 and response.json()["error"]["code"] == "timeout"


def test_frozen_core_answers_503_within_the_deadline(pair: Pair) -> None:
    """SIGSTOP: the core's socket accepts and nothing answers, as with a hung process or a dropped route."""
    key = f"frozen-{uuid.uuid4().hex}"
    body = {"amount": 777, "currency": "usd", "return_url": "https://s.example/", "description": key}
    requests = [
        *_requests(pair),
        ("GET", "/healthz", {}),
        ("POST", f"{API}/charges", {"json": body, "headers": {**pair.merchant.auth, "Idempotency-Key": key}}),
    ]
    pair.core.process.send_signal(signal.SIGSTOP)
    try:
        with (
            httpx.Client(base_url=pair.gateway.base_url, timeout=CORE_TIMEOUT * 4) as client,
            ThreadPoolExecutor(len(requests)) as pool,
        ):
            answers = list(pool.map(lambda r: _timed(client, r[0], r[1], **r[2]), requests))
    finally:
        pair.core.process.send_signal(signal.SIGCONT)
    for (method, path, _), (response, seconds) in zip(requests, answers, strict=True):
        # The deadline covers a call and its one retry; a request makes its core calls one after another
        # and the first one that times out ends it.
        assert seconds < CORE_TIMEOUT + 1.0, f"{method} {path} took {seconds:.2f}s"
        if path == "/healthz":
            assert response.status_code == 503 and response.json()["checks"]["core"] == "unavailable"
        else:
            _assert_503(response, {"timeout", "service_unavailable"})

    with httpx.Client(base_url=pair.gateway.base_url, timeout=15.0) as client:
        wait_until(
            lambda: client.get("/healthz").status_code == 200, timeout=10.0, what="health after the thaw"
        )
        # The timed-out write's outcome was unknown; its retry with the same key answers it, once.
        retry = client.post(
            f"{API}/charges", json=body, headers={**pair.merchant.auth, "Idempotency-Key": key}
        )
        assert retry.status_code == 201, retry.text
    made = count(pair.env["DATABASE_URL"], "SELECT count(*) FROM charges WHERE description = %s", key)
    assert made == 1
