"""The rate limit stays global across gateways while each leases its positions in batches (real Redis).

Two gateway processes share the session's core and one Redis namespace of their own; requests without a
credential are counted per client address (127.0.0.1) at RATE_LIMIT_ANONYMOUS, need no core call (401 when
admitted, 429 when not) and say their window in X-RateLimit-Reset. Per window, the gateways together may
admit no more than limit + gateways × batch (the brief's bound); with positions handed out only within the
limit they admit at most the limit, and, in a window both kept asking through, at least
min(asked, limit) − gateways × batch (what leased positions left unused at the window's end can cost).
One gateway alone answers 429 exactly past the limit, with the usual envelope.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from http_gateway.pipeline.rate_leases import lease_size
from tests.e2e.api_client import API
from tests.support.processes import RunningProcess, start_gateway

pytestmark = pytest.mark.e2e

LIMIT = 30
GATEWAYS = 2
BATCH = lease_size(LIMIT, previous_demand=10**6, waiting=1)  # the largest a busy subject leases


@pytest.fixture(scope="module")
def gateways(stack_env: dict[str, str], core_process: RunningProcess) -> Iterator[list[RunningProcess]]:
    env = {**stack_env, "RATE_LIMIT_ANONYMOUS": str(LIMIT), "REDIS_NAMESPACE": f"rl-{uuid.uuid4().hex[:10]}"}
    started: list[RunningProcess] = []
    try:
        for _ in range(GATEWAYS):
            started.append(start_gateway(env, [core_process.address]))
        yield started
    finally:
        for process in started:
            process.stop()


async def _hammer(base_url: str, seconds: float, workers: int) -> list[httpx.Response]:
    """Unauthenticated requests from `workers` concurrent loops for `seconds`."""
    out: list[httpx.Response] = []
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as client:

        async def loop() -> None:
            while time.monotonic() < deadline:
                out.append(await client.get(f"{API}/charges"))

        await asyncio.gather(*(loop() for _ in range(workers)))
    return out


def _per_window(responses: list[httpx.Response]) -> tuple[Counter[str], Counter[str]]:
    """Requests and admitted requests (401: counted, then refused for the missing key) per window."""
    assert {r.status_code for r in responses} <= {401, 429}, Counter(r.status_code for r in responses)
    sent = Counter(r.headers["X-RateLimit-Reset"] for r in responses)
    admitted = Counter(r.headers["X-RateLimit-Reset"] for r in responses if r.status_code == 401)
    return sent, admitted


def _wait_for_a_new_second() -> None:
    time.sleep(1.02 - time.time() % 1)


def test_one_gateway_answers_429_exactly_past_the_limit(gateways: list[RunningProcess]) -> None:
    _wait_for_a_new_second()
    responses = asyncio.run(_hammer(gateways[0].base_url, 1.5, workers=8))
    sent, admitted = _per_window(responses)
    assert max(sent.values()) > LIMIT, f"the load never passed the limit: {sent}"
    for window, count in sent.items():
        assert admitted[window] == min(count, LIMIT), (window, count, admitted[window])
    refused = next(r for r in responses if r.status_code == 429)
    body = refused.json()["error"]
    assert (body["type"], body["code"]) == ("rate_limit_error", "rate_limit_exceeded")
    assert refused.headers["X-RateLimit-Limit"] == str(LIMIT)
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert int(refused.headers["Retry-After"]) >= 1


def test_two_gateways_together_admit_the_limit_within_one_batch_each(gateways: list[RunningProcess]) -> None:
    _wait_for_a_new_second()

    async def both() -> list[list[httpx.Response]]:
        return list(await asyncio.gather(*(_hammer(g.base_url, 3.5, workers=6) for g in gateways)))

    per_gateway = asyncio.run(both())
    sent, admitted = _per_window([r for responses in per_gateway for r in responses])
    inner = sorted(sent)[1:-1]  # both gateways were asking from the start to the end of these windows
    assert any(sent[w] > LIMIT for w in inner), f"not enough load to test the bound: {sent}"
    for window in sent:
        assert admitted[window] <= LIMIT + GATEWAYS * BATCH
        assert admitted[window] <= LIMIT  # positions are handed out only within the limit
    for window in inner:
        assert admitted[window] >= min(sent[window], LIMIT) - GATEWAYS * BATCH, (window, sent, admitted)
    for responses in per_gateway:  # each gateway refused some: the count really was shared
        assert any(r.status_code == 429 for r in responses)
