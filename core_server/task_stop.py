"""Stopping a background task for sure: cancel it, and cancel it again while it goes on.

Why: a cancel can be lost inside a client library. redis-py 8.1 on Python 3.11 swallows about a third
of the cancels that land while a command is in flight (measured), and psycopg_pool waits for a free
connection with `asyncio.wait_for`, whose 3.11 race (CPython gh-86296) loses a cancel that lands as the
wait completes: the call returns as if nothing happened, and a loop that was meant to end — a heartbeat,
a sweep, a lease renewal — sleeps and goes on. A shutdown that cancels such a task once and then waits
for it waits forever (a CI run hung for its whole 120 s time-out in the heartbeat's stop). Each further
cancel lands wherever the task is at that moment, usually in its sleep, where nothing can swallow it.
"""

from __future__ import annotations

import asyncio
from typing import Any

RECANCEL_SECONDS = 0.1
"""How long a cancelled task gets to end before it is cancelled again."""


async def cancel_and_wait(*tasks: asyncio.Future[Any], recancel: float = RECANCEL_SECONDS) -> None:
    """Cancel `tasks` and wait until every one has ended; their results and errors are dropped (the
    callers stop them for good). Only for tasks whose cleanup is short and need not finish: a second
    cancel lands in whatever cleanup the first one started."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        # await: each task unwinds from its cancel; one still running after `recancel` is cancelled again.
        _, pending = await asyncio.wait(pending, timeout=recancel)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log "exception was never retrieved"
