"""The event stream of a CLI session: the merchant's TEST events, in log order, signed like deliveries.

Nothing lost, nothing repeated, whichever gateway or core serves a stream: the log is read in (tx, seq)
order and only below the oldest running transaction (storage says how), so a position, once passed, has
nothing before it that could still commit. A stream resumes after the client's Last-Event-ID; without one,
or when that event is no longer in the log (deleted by a TEST reset or by retention, which leaves only
newer events), after the session's start. Each event is signed when it is sent, with real time in `t`
(as deliveries are), so receivers can verify it within the 5-minute tolerance.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from core_server.developer_tools.application.cli_sessions import CliSessionService
from core_server.developer_tools.application.ports import TestEventLog
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.event_types import is_known_type
from core_server.webhooks.domain.events import event_body
from core_server.webhooks.domain.webhook_signature import signature_header

BATCH = 100


@dataclass(frozen=True, slots=True)
class SignedEvent:
    """What a webhook delivery of the event would POST: its body and `Service-Signature` header."""

    id: str
    type: str
    body: bytes
    signature: str


class CliEventStream:
    def __init__(
        self,
        sessions: CliSessionService,
        log: TestEventLog,
        clocks: Clocks,
        *,
        poll_interval: float = 0.5,
        keepalive_interval: float = 15.0,
    ) -> None:
        self._sessions = sessions
        self._log = log
        self._clocks = clocks
        self.poll_interval = poll_interval
        self.keepalive_interval = keepalive_interval
        self._closing = asyncio.Event()

    def close(self) -> None:
        """Ends every stream of this core at its next pause (core shutdown): the CLIs reconnect with their
        Last-Event-ID through any gateway to any core, and lose nothing."""
        self._closing.set()

    async def stream(
        self, owner: Owner, session_id: str, last_event_id: str, types: Sequence[str]
    ) -> AsyncGenerator[SignedEvent | None, None]:
        """Yields events, and None as a keep-alive: first at once (the session is open), then whenever
        `keepalive_interval` passed without one. Ends when the session closes or expires."""
        session = await self._sessions.get_open(owner, session_id)
        wanted = _checked_types(types)
        position = None
        if last_event_id:
            position = await self._log.position_of(owner.merchant_id, last_event_id)
        position = position or session.start
        secret = self._sessions.secret(session)
        loop = asyncio.get_running_loop()
        yield None
        quiet_since = loop.time()
        while True:
            batch = await self._log.after(owner.merchant_id, position, BATCH)
            for event in batch:
                if wanted and event.type not in wanted:
                    # Passed, not sent: the next read starts after it, not after the last event sent.
                    position = event.position
                    continue
                body = event_body(event.payload)
                timestamp = int(self._clocks.system().now().timestamp())
                yield SignedEvent(event.id, event.type, body, signature_header(body, secret, timestamp))
                position = event.position
                quiet_since = loop.time()
            if len(batch) == BATCH:
                continue  # a backlog: read on without pausing
            if loop.time() - quiet_since >= self.keepalive_interval:
                # Closed by the CLI, replaced by the device's next session, or expired: the stream ends.
                current = await self._sessions.get(owner, session.id)
                if not current.is_open(self._clocks.system().now()):
                    return
                yield None
                quiet_since = loop.time()
            if self._closing.is_set():
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), self.poll_interval)


def _checked_types(types: Sequence[str]) -> tuple[str, ...]:
    for event_type in types:
        if not is_known_type(event_type):
            raise ParameterInvalid(f"Unknown event type: '{event_type[:100]}'.", param="events")
    return tuple(dict.fromkeys(types))
