"""AttemptRecorder: the attempts that finish while a record is being written are written together next.

Group commit: the first finished attempt waits `gather` seconds (WEBHOOK_GATHER_SECONDS, a few ms) for
company, then is written with whatever finished meanwhile (one statement); those that finish while it is
in flight queue up and go in the next statement, however many they are. Under a steady event rate the
record costs one round trip and one statement per batch instead of per delivery.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from core_server.webhooks.application.ports import AttemptRecord

RecordMany = Callable[[Sequence[AttemptRecord]], Awaitable[Sequence[bool]]]


class AttemptRecorder:
    def __init__(self, record_many: RecordMany, *, gather: float = 0.0) -> None:
        self._record_many = record_many
        self._gather = gather
        self._queued: list[tuple[AttemptRecord, asyncio.Future[bool]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.statements = 0  # batches written, for tests and the curious

    async def record(self, record: AttemptRecord) -> bool:
        """Stores the attempt with whatever else is queued; True when the delivery is due again now (a
        resend re-queued it). Raises what the batch's statement raised."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        # Read by nobody when its attempt was cancelled meanwhile: not a "never retrieved" warning then.
        done.add_done_callback(_retrieved)
        self._queued.append((record, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="webhook-attempt-recorder")
        # Shielded: an attempt cancelled at shutdown leaves its record to finish with the batch.
        return await asyncio.shield(done)

    async def _write(self) -> None:
        try:
            while self._queued:
                if self._gather > 0:
                    await asyncio.sleep(self._gather)  # attempts finishing now join this statement
                batch, self._queued = self._queued, []
                try:
                    results = await self._record_many([record for record, _ in batch])
                except Exception as exc:  # noqa: BLE001 - each waiting attempt gets the failure
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                finally:
                    self.statements += 1
                for (_, done), released in zip(batch, results, strict=True):
                    if not done.done():
                        done.set_result(released)
        finally:
            self._writer = None


def _retrieved(done: asyncio.Future[bool]) -> None:
    if not done.cancelled():
        done.exception()
