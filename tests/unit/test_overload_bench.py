"""The overload generator (scripts/bench/open_loop.py) against a scripted HTTP server: requests go out at
the offered rate whatever the answers, and 2xx, 503 (with and without Retry-After) and other answers are
counted apart, so a miscount cannot pass as a met target."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module() -> Any:
    path = ROOT / "scripts" / "bench" / "open_loop.py"
    spec = importlib.util.spec_from_file_location("open_loop", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["open_loop"] = module
    spec.loader.exec_module(module)
    return module


open_loop = _module()

# Answers by request number: created, shed with Retry-After, shed without it, a 500 (closing the connection).
ANSWERS = [
    b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}",
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 3\r\n\r\nbad",
    b"HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
]


@pytest.fixture
def scripted_server() -> Iterator[tuple[str, list[int]]]:
    """A server in a thread of its own answering ANSWERS in turn (slowly for created ones); yields its URL
    and the count of requests it read."""
    seen = [0]
    ready = threading.Event()
    stop: list[Any] = []
    url: list[str] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                answer = ANSWERS[seen[0] % len(ANSWERS)]
                seen[0] += 1
                if answer.startswith(b"HTTP/1.1 201"):
                    await asyncio.sleep(0.05)  # slower than the pace: the next requests must not wait
                writer.write(answer)
                await writer.drain()
                if b"Connection: close" in answer:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        url.append(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        done = asyncio.Event()
        stop.append((asyncio.get_running_loop(), done))
        ready.set()
        await done.wait()
        server.close()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    ready.wait(5)
    yield url[0], seen
    loop, done = stop[0]
    loop.call_soon_threadsafe(done.set)
    thread.join(5)


def test_every_answer_is_counted_by_kind_at_the_offered_rate(scripted_server: tuple[str, list[int]]) -> None:
    url, seen = scripted_server
    result = open_loop.offer(url, "sk_test_x", rate=200, seconds=0.4)
    assert result["offered"] == 80 and seen[0] == 80
    assert (result["admitted"], result["shed"], result["other"]) == (20, 40, {"500": 20})
    assert result["shed_without_retry_after"] == 20
    assert result["shed_share"] == 0.5
    assert result["admitted_ms"]["p50"] >= 50  # counted from each request's due time
    assert result["offered_per_second"] == pytest.approx(200, rel=0.2)
    assert result["peak_connections"] > 1  # slow answers did not hold the pace back
    # Every connection open at the peak was opened, and each of the 20 500s ended a connection of its own.
    assert max(20, result["peak_connections"]) <= result["connections_opened"] <= result["offered"]


NETSTAT_TEXT = """TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans
TcpExt: 0 6712 6712 3464
IpExt: InNoRoutes InTruncatedPkts
IpExt: 0 0
"""


def test_the_kernel_counters_are_read_from_the_tcpext_lines_only() -> None:
    assert open_loop.kernel_counters(NETSTAT_TEXT) == {"listen_overflows": 6712, "syn_retransmits": 3464}
    assert open_loop.kernel_counters("IpExt: InNoRoutes\nIpExt: 0\n") == {}
