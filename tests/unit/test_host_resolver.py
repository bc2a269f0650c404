"""SystemHostResolver: look-ups run on its own few threads, each bounded by the time-out; a hung one
costs an empty answer after the time-out and never holds the loop's default executor."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

from core_server.webhooks.senders.host_resolver import SystemHostResolver

ANSWER = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("203.0.113.7", 443))]


class HangingLookup:
    """A system resolver that never answers until released: the thread really blocks."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0

    def __call__(self, host: str, port: int) -> list[tuple[Any, ...]]:
        self.started += 1
        if host.startswith("hang"):
            self.release.wait(10)
        return list(ANSWER)


async def test_a_hung_look_up_is_empty_after_the_time_out_and_leaves_the_default_executor_free() -> None:
    lookup = HangingLookup()
    resolver = SystemHostResolver(timeout=0.2, workers=2, lookup=lookup)
    try:
        started = time.monotonic()
        answers = await asyncio.gather(*(resolver.resolve(f"hang{n}.example", 443) for n in range(3)))
        assert answers == [[], [], []]
        assert time.monotonic() - started < 1.0
        assert lookup.started == 2  # two threads stuck; the third look-up timed out in the queue
        # Both resolver threads are stuck, yet the loop's shared executor answers at once.
        loop = asyncio.get_running_loop()
        assert await asyncio.wait_for(loop.run_in_executor(None, lambda: 42), 0.5) == 42
    finally:
        lookup.release.set()
    await asyncio.sleep(0.05)  # the stuck threads return
    assert await resolver.resolve("good.example", 443) == ["203.0.113.7"]


async def test_the_system_resolver_answers_localhost() -> None:
    assert "127.0.0.1" in await SystemHostResolver().resolve("localhost", 80)
