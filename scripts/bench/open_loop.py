"""An open-loop generator of creates: request i is due at start + i / rate, whatever the earlier ones are
doing, and its latency counts from that moment (overload.py, the overload step of `make bench`).

wrk keeps a fixed number of requests outstanding (a closed loop): when the server slows down, wrk slows
down with it, and an overload never builds up. Clients do not wait like that, so this generator is open
loop (a request that waited for a free connection here waited as a client would). It speaks raw HTTP/1.1
over keep-alive connections opened as needed (up to `max_connections`), on uvloop, with the requests'
bytes built ahead: a few tens of microseconds of CPU per request, so the generator takes little from the
two cores it shares with the system under test (httpx would take about a core at these rates).

`offer` reports goodput (2xx answers per second, from the first request's due time to the last answer),
requests shed (503) and whether each carried Retry-After, the latency of admitted (2xx) and shed
answers, anything else (other statuses, time-outs, broken connections), how often the pacer itself
started a request late, the connections it opened, and, from the kernel's counters of the whole machine
over the run, the TCP connections dropped because a listener's accept queue was full and the SYNs sent
again (`kernel_counters`).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

API = "/api/v1/connect"
BODY = (
    b'{"amount":2500,"currency":"usd","description":"overload bench","metadata":{"order_id":"6735"},'
    b'"return_url":"https://shop.example/thanks","cancel_url":"https://shop.example/cart"}'
)
MAX_CONNECTIONS = 512
REQUEST_TIMEOUT = 30.0
LATE_SECONDS = 0.05


def _pct(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * q // 100))
    return round(sorted_values[int(rank) - 1], 1)


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: one request at a time, its answer's status, Retry-After and
    whether the server will close the connection after it."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.answer: asyncio.Future[tuple[int, bool, bool]] | None = None
        self.buffer = bytearray()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's are not asyncio.Transport subclasses

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(ConnectionError("connection closed before the answer"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.answer is None:
            return
        head = bytes(self.buffer[:end]).lower()
        length = 0
        at = head.find(b"\r\ncontent-length:")
        if at >= 0:
            stop = head.find(b"\r\n", at + 2)
            length = int(head[at + 17 : stop if stop >= 0 else len(head)].strip())
        if len(self.buffer) < end + 4 + length:
            return
        status = int(head[9:12])
        del self.buffer[: end + 4 + length]
        closing = b"\r\nconnection: close" in head
        if not self.answer.done():
            self.answer.set_result((status, b"\r\nretry-after:" in head, closing))

    def send(self, request: bytes) -> asyncio.Future[tuple[int, bool, bool]]:
        assert self.transport is not None
        self.answer = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.answer


@dataclass
class _Tally:
    admitted_ms: list[float] = field(default_factory=list)
    shed_ms: list[float] = field(default_factory=list)
    shed_without_retry_after: int = 0
    other: Counter[str] = field(default_factory=Counter)
    last_answer: float = 0.0


class _Pool:
    """Idle connections, opened on demand up to `limit`; past it a request waits for one to free up."""

    def __init__(self, host: str, port: int, limit: int) -> None:
        self.host, self.port, self.limit = host, port, limit
        self.idle: list[_Connection] = []
        self.opened = 0
        self.peak = 0
        self.connects = 0
        self._freed = asyncio.Condition()

    async def take(self) -> _Connection:
        while True:
            while self.idle:
                conn = self.idle.pop()
                if not conn.closed:
                    return conn
            if self.opened < self.limit:
                self.opened += 1
                self.connects += 1
                self.peak = max(self.peak, self.opened)
                try:
                    loop = asyncio.get_running_loop()
                    _, conn = await loop.create_connection(_Connection, self.host, self.port)
                except OSError:
                    self.opened -= 1
                    raise
                return conn
            async with self._freed:
                await self._freed.wait()

    async def give_back(self, conn: _Connection, reusable: bool) -> None:
        if reusable and not conn.closed:
            self.idle.append(conn)
        else:
            self.opened -= 1
            if conn.transport is not None:
                conn.transport.close()
        async with self._freed:
            self._freed.notify()


def _request(host: str, secret_key: str, key: str) -> bytes:
    return (
        f"POST {API}/charges HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {secret_key}\r\n"
        f"Content-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {len(BODY)}\r\n\r\n"
    ).encode("ascii") + BODY


async def _offer(
    url: str, secret_key: str, rate: float, seconds: float, max_connections: int, run_id: str
) -> dict[str, Any]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    pool = _Pool(host, port, max_connections)
    tally = _Tally()
    loop = asyncio.get_running_loop()
    total = int(rate * seconds)
    requests = [_request(f"{host}:{port}", secret_key, f"{run_id}-{i}") for i in range(total)]

    async def one(request: bytes, due: float) -> None:
        conn: _Connection | None = None
        reusable = False
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                conn = await pool.take()
                status, retry_after, closing = await conn.send(request)
            reusable = not closing
        except TimeoutError:
            tally.other["timeout"] += 1
            return
        except OSError as exc:
            tally.other[type(exc).__name__] += 1
            return
        finally:
            if conn is not None:
                await pool.give_back(conn, reusable)
        now = loop.time()
        tally.last_answer = max(tally.last_answer, now)
        elapsed_ms = (now - due) * 1000
        if 200 <= status < 300:
            tally.admitted_ms.append(elapsed_ms)
        elif status == 503:
            tally.shed_ms.append(elapsed_ms)
            tally.shed_without_retry_after += 0 if retry_after else 1
        else:
            tally.other[str(status)] += 1

    tasks: set[asyncio.Task[None]] = set()
    late = 0
    began = loop.time() + 0.05
    for i, request in enumerate(requests):
        due = began + i / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        elif delay < -LATE_SECONDS:
            late += 1  # the pacer itself fell behind (a busy machine): counted, not hidden
        task = asyncio.create_task(one(request, due))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    offered_for = loop.time() - began
    while tasks:
        await asyncio.gather(*list(tasks))
    for conn in pool.idle:
        if conn.transport is not None:
            conn.transport.close()
    result = _summary(tally, rate, seconds, total, late, offered_for, began, pool.peak)
    result["connections_opened"] = pool.connects
    return result


def _summary(
    tally: _Tally,
    rate: float,
    seconds: float,
    total: int,
    late: int,
    offered_for: float,
    began: float,
    peak_connections: int,
) -> dict[str, Any]:
    admitted, shed = sorted(tally.admitted_ms), sorted(tally.shed_ms)
    span = max(tally.last_answer - began, offered_for, 1e-9)
    answered = len(admitted) + len(shed) + sum(tally.other.values())
    return {
        "rate": rate,
        "seconds": seconds,
        "offered": total,
        "offered_per_second": round(total / max(offered_for, 1e-9), 1),
        "late_starts": late,
        "span_seconds": round(span, 2),
        "admitted": len(admitted),
        "shed": len(shed),
        "other": dict(tally.other),
        "goodput_rps": round(len(admitted) / span, 1),
        "shed_share": round(len(shed) / answered, 3) if answered else None,
        "shed_without_retry_after": tally.shed_without_retry_after,
        "admitted_ms": {"p50": _pct(admitted, 50), "p99": _pct(admitted, 99), "max": _pct(admitted, 100)},
        "shed_ms": {"p50": _pct(shed, 50), "p99": _pct(shed, 99), "max": _pct(shed, 100)},
        "peak_connections": peak_connections,
    }


NETSTAT = Path("/proc/net/netstat")
KERNEL_COUNTERS = {"ListenOverflows": "listen_overflows", "TCPSynRetrans": "syn_retransmits"}


def kernel_counters(text: str) -> dict[str, int]:
    """The TcpExt counters of KERNEL_COUNTERS from /proc/net/netstat's text (pairs of a header line and a
    value line per protocol), by their names here."""
    lines = text.splitlines()
    found: dict[str, int] = {}
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:") and values.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            found = {ours: int(row[theirs]) for theirs, ours in KERNEL_COUNTERS.items() if theirs in row}
    return found


def _read_kernel_counters() -> dict[str, int]:
    try:
        return kernel_counters(NETSTAT.read_text())
    except OSError:  # not Linux: the counters are left out
        return {}


def offer(
    url: str,
    secret_key: str,
    *,
    rate: float,
    seconds: float,
    max_connections: int = MAX_CONNECTIONS,
    run_id: str | None = None,
) -> dict[str, Any]:
    """`rate` creates per second for `seconds` against the gateway at `url`, open loop (see the module)."""
    run = run_id or f"ovl{int(time.time() * 1000)}"
    coro = _offer(url, secret_key, rate, seconds, max_connections, run)
    cpu_before = time.process_time()
    kernel_before = _read_kernel_counters()
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency of the gateway
        result = asyncio.run(coro)
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result = runner.run(coro)
    kernel_after = _read_kernel_counters()
    for name in kernel_after.keys() & kernel_before.keys():
        result[f"machine_{name}"] = kernel_after[name] - kernel_before[name]
    # What the generator itself took of the machine it shares with the system under test.
    result["generator_cpu_ms_per_request"] = round(
        (time.process_time() - cpu_before) * 1000 / max(result["offered"], 1), 3
    )
    return result
