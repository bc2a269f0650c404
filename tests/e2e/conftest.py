"""End-to-end fixtures: one real core and one real gateway for the session, talked to over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.processes import RunningProcess, start_core, start_gateway

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="session")
def core_process(stack_env: dict[str, str]) -> Iterator[RunningProcess]:
    process = start_core(stack_env)
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="session")
def gateway_process(stack_env: dict[str, str], core_process: RunningProcess) -> Iterator[RunningProcess]:
    process = start_gateway(stack_env, [core_process.address])
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def client(gateway_process: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as http:
        yield http


@pytest.fixture
def gateway_log(gateway_process: RunningProcess, core_process: RunningProcess) -> tuple[RunningProcess, RunningProcess]:
    return gateway_process, core_process
