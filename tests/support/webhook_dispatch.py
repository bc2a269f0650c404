"""Running the cores' webhook dispatchers for the length of a block, as the core runs them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from core_server.bootstrap import Core
from core_server.task_stop import cancel_and_wait
from core_server.webhooks.application.webhook_dispatcher import SHUTDOWN_GRACE_SECONDS


@asynccontextmanager
async def dispatching(*cores: Core) -> AsyncIterator[None]:
    """Runs each core's dispatcher loop (LISTEN/NOTIFY and poll) for the duration of the block."""
    tasks = [asyncio.create_task(core.dispatcher.run_forever()) for core in cores]
    try:
        yield
    finally:
        # Cancelled until they end: a cancel landing in psycopg_pool's wait for a connection can be lost.
        await cancel_and_wait(*tasks, recancel=SHUTDOWN_GRACE_SECONDS + 1.0)
