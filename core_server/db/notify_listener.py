"""PgNotifyWakeups: LISTEN on one channel and call back on every NOTIFY (webhook deliveries, test clocks)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from core_server.task_stop import cancel_and_wait

logger = logging.getLogger(__name__)

RECONNECT_SECONDS = 2.0
LISTEN_KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}


class PgNotifyWakeups:
    """A dedicated autocommit connection (a pooled one would be returned mid-LISTEN).

    If the connection drops, the listener reconnects and calls back once, since notifications sent
    meanwhile were lost (the webhook dispatcher's slow poll covers the gap; the clock cache is dropped).
    """

    def __init__(self, dsn: str, channel: str) -> None:
        """`dsn` reaches PostgreSQL itself, never a transaction pooler (DATABASE_LISTEN_URL), and may list
        several hosts: after a failover the reconnection finds the new primary."""
        self._dsn = dsn
        self._channel = channel
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()

    async def start(self, wake: Callable[[], None]) -> None:
        self._task = asyncio.create_task(self._listen(wake), name=f"listen-{self._channel}")
        # Waits briefly for the first LISTEN, so a test or a fresh core misses no early NOTIFY.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.listening.wait(), 5.0)

    async def close(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _listen(self, wake: Callable[[], None]) -> None:
        while True:
            try:
                # Keepalives: a primary whose host vanished (a failover) leaves no RST behind; without
                # them this connection would wait for the system's two hours before it reconnected.
                conn = await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True, connect_timeout=5, **LISTEN_KEEPALIVES
                )
                try:
                    await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
                    self.listening.set()
                    logger.info("LISTEN %s on %s:%s", self._channel, conn.info.host, conn.info.port)
                    wake()  # anything committed while we were not listening is picked up now
                    # Waits for notifications for as long as the connection lives.
                    async for _ in conn.notifies():
                        wake()
                finally:
                    self.listening.clear()
                    await conn.close()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - polling covers the gap; keep trying to listen
                logger.warning("LISTEN %s connection lost (%s); retrying", self._channel, type(exc).__name__)
            await asyncio.sleep(RECONNECT_SECONDS)
