"""IdleConnections: kept-alive webhook connections, keyed by what was checked for them.

A connection is reused only for the same (scheme, host, port, pinned address): the address is the one the
dispatcher resolved and checked for this very attempt (SSRF), so a host that now resolves elsewhere gets a
new connection to its new, checked address; and a TLS session verified for one host never carries a
request for another host on the same address. Idle connections last IDLE_SECONDS (receivers close idle
ones on their own, commonly after 5 to 75 s), at most MAX_IDLE_PER_KEY per key.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import h11

IDLE_SECONDS = 4.0
"""Under the shortest common server keep-alive (5 s, Node.js): a reused connection is rarely one the
receiver is closing at that moment (and such a race is retried once on a fresh connection)."""
MAX_IDLE_PER_KEY = 8
"""WEBHOOK_ENDPOINT_CONCURRENCY's default: one per attempt in flight to an endpoint."""

PoolKey = tuple[str, str, int, str]
"""(scheme, host, port, pinned address)."""


@dataclass(slots=True)
class PooledConnection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    http: h11.Connection
    idle_since: float = 0.0
    reused: bool = False

    def usable(self, now: float) -> bool:
        return (
            now - self.idle_since < IDLE_SECONDS
            and not self.reader.at_eof()
            and not self.writer.transport.is_closing()
            and self.http.our_state is h11.IDLE
        )

    def abort(self) -> None:
        self.writer.transport.abort()


class IdleConnections:
    def __init__(self) -> None:
        self._idle: dict[PoolKey, list[PooledConnection]] = {}
        self.opened = 0  # connections opened, for the reuse tests and operators' curiosity
        self.reused = 0

    def take(self, key: PoolKey) -> PooledConnection | None:
        """The most recently used live connection for `key`, or None; stale ones are closed."""
        now = asyncio.get_running_loop().time()
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable(now):
                conn.reused = True
                self.reused += 1
                return conn
            conn.abort()
        self._idle.pop(key, None)
        return None

    def give_back(self, key: PoolKey, conn: PooledConnection) -> None:
        """Keeps `conn` for the next request to `key` if its answer was read to the end."""
        if conn.http.our_state is not h11.DONE or conn.http.their_state is not h11.DONE:
            conn.abort()
            return
        conn.http.start_next_cycle()
        now = asyncio.get_running_loop().time()
        conn.idle_since = now
        conn.reused = False
        idle = self._idle.setdefault(key, [])
        if len(idle) >= MAX_IDLE_PER_KEY:
            conn.abort()
            return
        idle.append(conn)
        self._prune(now)

    def _prune(self, now: float) -> None:
        """Closes connections idle too long, for keys no attempt uses any more."""
        for key in [k for k, idle in self._idle.items() if idle and now - idle[0].idle_since >= IDLE_SECONDS]:
            kept = []
            for conn in self._idle[key]:
                if conn.usable(now):
                    kept.append(conn)
                else:
                    conn.abort()
            if kept:
                self._idle[key] = kept
            else:
                del self._idle[key]

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.abort()
        self._idle.clear()
