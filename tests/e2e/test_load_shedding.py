"""Admission control over real processes: with tiny bounds a burst of creates gets some 503s with
Retry-After, each answered at once, and no 500; every admitted create succeeds; a shed create left no
charge, and its retry with the same Idempotency-Key creates exactly one.

Two stacks share the session's database: a gateway whose own gate is tiny (GATEWAY_MAX_CORE_CALLS=1, a
line of 1 waiting 10 ms) in front of the session's core, and a gateway without a gate in front of a core
of its own that runs 1 RPC at a time (CORE_MAX_IN_FLIGHT_RPCS=1), so each side's shedding is seen alone.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway

pytestmark = pytest.mark.e2e

# The burst's requests share the gateway's loop (each answer waits for the CPU the others take), so the
# burst is kept small enough that this holds on a busy two-core machine.
BURST = 20
SHED_WITHIN_SECONDS = 0.1
BODY = {
    "amount": 2500,
    "currency": "usd",
    "return_url": "https://shop.example/ok",
    "cancel_url": "https://shop.example/cancel",
}


@dataclass(frozen=True)
class Answer:
    key: str
    status: int
    seconds: float
    retry_after: str | None
    body: dict


@pytest.fixture(scope="module")
def gated_gateway(stack_env: dict[str, str], core_process: RunningProcess) -> Iterator[RunningProcess]:
    tiny = {"GATEWAY_MAX_CORE_CALLS": "1", "GATEWAY_CORE_CALL_QUEUE": "1", "GATEWAY_CORE_CALL_WAIT_MS": "10"}
    process = start_gateway({**stack_env, **tiny, "RATE_LIMIT_TEST": "100000"}, [core_process.address])
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def gated_core_gateway(stack_env: dict[str, str]) -> Iterator[RunningProcess]:
    core = start_core({**stack_env, "CORE_MAX_IN_FLIGHT_RPCS": "1"})
    try:
        gateway = start_gateway(
            {**stack_env, "GATEWAY_MAX_CORE_CALLS": "0", "RATE_LIMIT_TEST": "100000"}, [core.address]
        )
        try:
            yield gateway
        finally:
            gateway.stop()
    finally:
        core.stop()


class StalledStack(NamedTuple):
    core: RunningProcess
    gateway: RunningProcess


@pytest.fixture(scope="module")
def stalled_stack(stack_env: dict[str, str]) -> Iterator[StalledStack]:
    """A core of its own (the test stops it to hold the one slot) behind a gateway with one slot and one
    place in line, whose waiter stays in line through the burst; the key cache outlives the test."""
    core = start_core(stack_env)
    try:
        bounds = {
            "GATEWAY_MAX_CORE_CALLS": "1",
            "GATEWAY_CORE_CALL_QUEUE": "1",
            "GATEWAY_CORE_CALL_WAIT_MS": "500",
            "CORE_TIMEOUT_SECONDS": "30",
            "API_KEY_CACHE_SECONDS": "120",
            "RATE_LIMIT_TEST": "100000",
        }
        gateway = start_gateway({**stack_env, **bounds}, [core.address])
        try:
            yield StalledStack(core, gateway)
        finally:
            gateway.stop()
    finally:
        core.process.send_signal(signal.SIGCONT)
        core.stop()


async def _open(base_url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    url = httpx.URL(base_url)
    return await asyncio.open_connection(url.host, url.port)


async def _exchange(
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], request: bytes
) -> tuple[int, dict[str, str], bytes, float]:
    """One HTTP/1.1 request on an open connection, timed from its last byte written to its answer's
    last byte read: raw streams, so the burst's timing is the server's, not a client library's."""
    reader, writer = connection
    writer.write(request)
    await writer.drain()
    started = time.monotonic()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {
        k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
    }
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(lines[0].split(" ")[1]), headers, body, time.monotonic() - started


def _create_request(base_url: str, merchant: Merchant, key: str) -> bytes:
    body = json.dumps(BODY).encode()
    head = (
        f"POST {API}/charges HTTP/1.1\r\nHost: {httpx.URL(base_url).netloc.decode()}\r\n"
        f"Authorization: Bearer {merchant.secret_key}\r\nContent-Type: application/json\r\n"
        f"Idempotency-Key: {key}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _burst(base_url: str, merchant: Merchant) -> list[Answer]:
    """BURST creates at once, each on a connection opened beforehand."""
    connections = [await _open(base_url) for _ in range(BURST)]
    keys = [f"burst-{uuid.uuid4().hex}" for _ in range(BURST)]
    try:
        answers = await asyncio.gather(
            *(
                _exchange(c, _create_request(base_url, merchant, k))
                for c, k in zip(connections, keys, strict=True)
            )
        )
    finally:
        for _, writer in connections:
            writer.close()
    return [
        Answer(key, status, seconds, headers.get("retry-after"), json.loads(body))
        for key, (status, headers, body, seconds) in zip(keys, answers, strict=True)
    ]


def _charge_count(http: httpx.Client, merchant: Merchant) -> int:
    listed = http.get(f"{API}/charges", params={"limit": 1}, headers=merchant.auth)
    assert listed.status_code == 200, listed.text
    return int(listed.json()["total_count"])


def _check_burst(base_url: str, http: httpx.Client) -> None:
    merchant = sign_up(http)
    # A first burst resolves and caches the key and opens the gateway's Redis connections, so the
    # measured one times shedding, not connection set-up.
    asyncio.run(_burst(base_url, merchant))
    before = _charge_count(http, merchant)
    answers = asyncio.run(_burst(base_url, merchant))
    statuses = sorted({a.status for a in answers})
    admitted = [a for a in answers if a.status == 201]
    shed = [a for a in answers if a.status == 503]
    assert statuses in ([201, 503], [503]), statuses  # never a 500, nor anything else
    assert shed, "a burst of 20 against bounds of 1 shed nothing"
    for answer in shed:
        assert answer.retry_after == "1"
        error = answer.body["error"]
        assert (error["type"], error["code"]) == ("api_error", "service_unavailable")
        assert answer.seconds < SHED_WITHIN_SECONDS, f"a 503 took {answer.seconds * 1000:.0f} ms"
    for answer in admitted:
        assert answer.body["status"] == "pending"
    # A shed create did nothing: the admitted ones are all the burst made.
    assert _charge_count(http, merchant) == before + len(admitted)
    # So its retry with the same key is safe: it creates the charge once, as a fresh answer.
    with httpx.Client(base_url=base_url, timeout=30.0) as retry:
        for answer in shed:
            again = retry.post(
                f"{API}/charges", json=BODY, headers={**merchant.auth, "Idempotency-Key": answer.key}
            )
            assert again.status_code == 201, again.text
            assert again.headers.get("Idempotent-Replayed") is None
    assert _charge_count(http, merchant) == before + len(admitted) + len(shed)


def test_the_gateway_sheds_a_burst_at_once_and_a_shed_create_changed_nothing(
    gated_gateway: RunningProcess, http: httpx.Client
) -> None:
    _check_burst(gated_gateway.base_url, http)


def test_the_core_sheds_a_burst_at_once_and_a_shed_create_changed_nothing(
    gated_core_gateway: RunningProcess, http: httpx.Client
) -> None:
    _check_burst(gated_core_gateway.base_url, http)


def test_health_and_metrics_answer_while_the_gate_is_full(
    gated_gateway: RunningProcess, http: httpx.Client
) -> None:
    merchant = sign_up(http)
    base = gated_gateway.base_url

    async def flood_and_probe() -> tuple[list[int], list[int]]:
        connections = [await _open(base) for _ in range(BURST + 2)]
        probes = [f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for path in ("/healthz", "/metrics")]
        requests = [_create_request(base, merchant, f"probe-{uuid.uuid4().hex}") for _ in range(BURST)]
        try:
            answers = await asyncio.gather(
                *(_exchange(c, r) for c, r in zip(connections, [*requests, *probes], strict=True))
            )
        finally:
            for _, writer in connections:
                writer.close()
        return [a[0] for a in answers[:BURST]], [a[0] for a in answers[BURST:]]

    created, probed = asyncio.run(flood_and_probe())
    assert 503 in created
    assert probed == [200, 200]
    shed = httpx.get(f"{base}/metrics").text
    # Counted where they were shed: mostly on arrival, now that requests let in hold their place.
    assert 'gateway_requests_shed_total{where="' in shed


def _shed_by_where(base_url: str) -> dict[str, float]:
    counts: dict[str, float] = {}
    for line in httpx.get(f"{base_url}/metrics", timeout=10).text.splitlines():
        if line.startswith("gateway_requests_shed_total{"):
            counts[line.split('where="')[1].split('"')[0]] = float(line.rsplit(" ", 1)[1])
    return counts


def test_a_burst_finding_the_slot_and_the_line_spoken_for_is_turned_away_on_arrival(
    stalled_stack: StalledStack, http: httpx.Client
) -> None:
    """Requests let in count against the slots and the line until they reach them: with the one slot and
    the one place in line spoken for, a burst of 20 is turned away as it arrives, all but (at most) one,
    before their key check and rate-limit round trip. Before, every request arriving while the line had
    room was let in, however many were already on their way to it, and 19 were shed at the line after
    their work."""
    base = stalled_stack.gateway.base_url
    merchant = sign_up(http)
    with httpx.Client(base_url=base, timeout=30.0) as gateway_http:
        warm = gateway_http.post(
            f"{API}/charges", json=BODY, headers={**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
        )
        assert warm.status_code == 201, warm.text  # the key is cached, Redis connected
        before = _charge_count(gateway_http, merchant)
    shed_before = _shed_by_where(base)
    core = stalled_stack.core.process
    core.send_signal(signal.SIGSTOP)  # the call that takes the slot holds it until the core resumes
    try:

        async def hold_then_burst() -> list[int]:
            holder = await _open(base)
            burst = [await _open(base) for _ in range(BURST)]
            try:
                requests = [
                    _create_request(base, merchant, f"shed-{uuid.uuid4().hex}") for _ in range(BURST + 1)
                ]
                calls = [
                    asyncio.create_task(_exchange(c, r))
                    for c, r in zip((holder, *burst), requests, strict=True)
                ]
                # All but the one in the slot and the one in line (it waits out its 500 ms) answer while
                # the core is stopped; then the core resumes and the rest finish.
                for answered, next_answer in enumerate(asyncio.as_completed(calls, timeout=20), start=1):
                    await next_answer
                    if answered == BURST - 1:
                        break
                core.send_signal(signal.SIGCONT)
                answers = await asyncio.gather(*calls)
            finally:
                for _, writer in (holder, *burst):
                    writer.close()
            for status, headers, _, _ in answers:
                assert status in (201, 503), status
                if status == 503:
                    assert headers.get("retry-after") == "1"
            return [status for status, _, _, _ in answers]

        statuses = asyncio.run(hold_then_burst())
    finally:
        core.send_signal(signal.SIGCONT)
    shed_after = _shed_by_where(base)
    moved = {k: shed_after.get(k, 0) - shed_before.get(k, 0) for k in shed_after}
    # Of the 21, one took the slot and one the place in line: the other 19 were turned away on arrival.
    assert moved.get("gateway_arrival", 0) >= BURST - 1, moved
    assert moved.get("gateway_line", 0) <= 1, moved
    assert statuses.count(503) == moved.get("gateway_arrival", 0) + moved.get("gateway_line", 0)
    with httpx.Client(base_url=base, timeout=30.0) as gateway_http:
        # A shed create did nothing: the charges made are the admitted ones.
        assert _charge_count(gateway_http, merchant) == before + statuses.count(201)
