"""SystemHostResolver: the operating system's DNS answer for a webhook host, every address of it.

getaddrinfo blocks a thread for as long as the system resolver takes (seconds per unanswering server,
more with retries), and asyncio cannot cancel it. So look-ups run on a few threads of their own, not on
the loop's default executor that everything else shares, and each is bounded by `timeout`: a merchant's
name whose DNS never answers costs at most `workers` stuck threads and `timeout` per attempt, and never
delays anything but other webhook look-ups. The threads are daemons (a look-up stuck in the system
resolver never holds up the process's exit) and end when idle.
"""

from __future__ import annotations

import asyncio
import queue
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

DNS_TIMEOUT_SECONDS = 3.0
DNS_WORKERS = 4

AddrInfo = list[tuple[Any, ...]]
Lookup = Callable[[str, int], AddrInfo]


def system_lookup(host: str, port: int) -> AddrInfo:
    return list(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))


class _LookupThreads:
    """At most `workers` daemon threads running look-ups in order; a thread starts when a look-up finds
    none free and ends after IDLE_SECONDS without work, so an idle resolver holds no thread. A cancelled
    look-up (its caller timed out) still waiting in the queue is skipped."""

    IDLE_SECONDS = 30.0

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._jobs: queue.SimpleQueue[tuple[Future[AddrInfo], Lookup, str, int]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._alive = 0
        self._idle = 0

    def submit(self, lookup: Lookup, host: str, port: int) -> Future[AddrInfo]:
        future: Future[AddrInfo] = Future()
        self._jobs.put((future, lookup, host, port))
        with self._lock:
            if self._jobs.qsize() > self._idle and self._alive < self._workers:
                self._alive += 1
                name = f"webhook-dns-{self._alive}"
                threading.Thread(target=self._work, name=name, daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                future, lookup, host, port = self._jobs.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    self._idle -= 1
                    if self._jobs.empty():  # a job put before this check is still taken
                        self._alive -= 1
                        return
                continue
            with self._lock:
                self._idle -= 1
            if not future.set_running_or_notify_cancel():
                continue  # its caller timed out while it waited in the queue
            try:
                future.set_result(lookup(host, port))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting caller
                future.set_exception(exc)


class SystemHostResolver:
    def __init__(
        self,
        *,
        timeout: float = DNS_TIMEOUT_SECONDS,  # noqa: ASYNC109 - a setting, applied inside resolve
        workers: int = DNS_WORKERS,
        lookup: Lookup = system_lookup,
    ) -> None:
        self._timeout = timeout
        self._lookup = lookup
        self._threads = _LookupThreads(workers)

    async def resolve(self, host: str, port: int) -> list[str]:
        """Unique addresses in the resolver's order; empty when the name does not resolve in time."""
        try:
            # Awaits the look-up on the resolver's own threads, at most `timeout`.
            async with asyncio.timeout(self._timeout):
                infos = await asyncio.wrap_future(self._threads.submit(self._lookup, host, port))
        except (OSError, UnicodeError, TimeoutError):
            return []
        addresses: list[str] = []
        for _family, _type, _proto, _name, sockaddr in infos:
            address = str(sockaddr[0])
            if address not in addresses:
                addresses.append(address)
        return addresses
