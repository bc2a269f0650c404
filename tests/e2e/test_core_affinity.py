"""A gateway listing two cores sends every request about one charge to the same core, and to the
other when that one dies (core_client/affinity.py): the flow's steps find the charge's actor active
instead of handing its lease over at every step, and nothing is lost when its core goes away."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.api_client import API, authorized_charge, sign_up
from tests.support.processes import RunningProcess, free_port, start_core, start_gateway

pytestmark = pytest.mark.e2e


def _calls(metrics_url: str, method: str) -> float:
    """How many `method` calls the core at `metrics_url` has answered."""
    text = httpx.get(metrics_url, timeout=5.0).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "core_rpc_duration_seconds_count" and sample.labels.get("method") == method
    )


@pytest.fixture
def two_cores_one_gateway(
    stack_env: dict[str, str],
) -> Iterator[tuple[list[RunningProcess], list[str], RunningProcess]]:
    env = {**stack_env, "RATE_LIMIT_TEST": "100000", "RATE_LIMIT_LIVE": "100000"}
    metrics = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    cores = [start_core({**env, "CORE_METRICS_ADDR": addr}) for addr in metrics]
    gateway: RunningProcess | None = None
    try:
        gateway = start_gateway(env, [core.address for core in cores])
        yield cores, [f"http://{addr}/metrics" for addr in metrics], gateway
    finally:
        for process in (gateway, *cores):
            if process is not None:
                process.stop()


def test_every_request_about_one_charge_goes_to_one_core_and_fails_over_when_it_dies(
    two_cores_one_gateway: tuple[list[RunningProcess], list[str], RunningProcess],
) -> None:
    cores, metrics, gateway = two_cores_one_gateway
    with httpx.Client(base_url=gateway.base_url, timeout=30.0) as client:
        merchant = sign_up(client)
        charges = [authorized_charge(client, merchant, amount=5_000) for _ in range(4)]
        for charge in charges:
            before = [_calls(url, "GetCharge") for url in metrics]
            for _ in range(10):
                assert client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).status_code == 200
            served = [_calls(url, "GetCharge") - b for url, b in zip(metrics, before, strict=True)]
            assert sorted(served) == [0, 10], f"{charge['id']}: GetCharge per core {served}"

        # Kill the core that serves the first charge: its requests move to the other core at once.
        charge = charges[0]
        before = [_calls(url, "GetCharge") for url in metrics]
        client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth)
        owner = max(range(2), key=lambda i: _calls(metrics[i], "GetCharge") - before[i])
        cores[owner].kill()
        started = time.monotonic()
        for _ in range(10):
            answer = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth)
            assert answer.status_code == 200, answer.text
        capture = client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers=merchant.auth)
        assert capture.status_code == 200, capture.text
        assert time.monotonic() - started < 10.0
