"""End-to-end fixtures: one real core and one real gateway for the session, talked to over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import Merchant, sign_up
from tests.support.processes import RunningProcess, free_port, start_core, start_gateway

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def gateway_port() -> int:
    """Chosen before the core starts, so the core's checkout_url points at the real gateway."""
    return free_port()


@pytest.fixture(scope="session")
def core_metrics_url() -> str:
    return f"http://127.0.0.1:{free_port()}/metrics"


@pytest.fixture(scope="session")
def core_process(
    stack_env: dict[str, str], gateway_port: int, core_metrics_url: str
) -> Iterator[RunningProcess]:
    base = f"http://127.0.0.1:{gateway_port}"
    metrics_addr = httpx.URL(core_metrics_url).netloc.decode()
    process = start_core(
        {**stack_env, "CHECKOUT_BASE_URL": base, "PUBLIC_BASE_URL": base, "CORE_METRICS_ADDR": metrics_addr}
    )
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="session")
def gateway_process(
    stack_env: dict[str, str], core_process: RunningProcess, gateway_port: int
) -> Iterator[RunningProcess]:
    process = start_gateway(stack_env, [core_process.address], port=gateway_port)
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def client(gateway_process: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as http:
        yield http


@pytest.fixture
def gateway_log(
    gateway_process: RunningProcess, core_process: RunningProcess
) -> tuple[RunningProcess, RunningProcess]:
    return gateway_process, core_process


@pytest.fixture(scope="session")
def unthrottled_gateway(stack_env: dict[str, str], core_process: RunningProcess) -> Iterator[RunningProcess]:
    """A second gateway on the session's core with rate limits out of the way, for the contract and
    hostile-input tests, which send hundreds of requests a second as one merchant."""
    limits = {"RATE_LIMIT_TEST": "1000000", "RATE_LIMIT_LIVE": "1000000", "RATE_LIMIT_ANONYMOUS": "1000000"}
    process = start_gateway({**stack_env, **limits}, [core_process.address])
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def http(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """A client of the unthrottled gateway; modules that need the session's own gateway define theirs."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as client:
        yield client


@pytest.fixture(scope="module")
def merchant(http: httpx.Client) -> Merchant:
    """A fresh merchant per module, so one module's objects never show up in another's snapshots."""
    return sign_up(http)
