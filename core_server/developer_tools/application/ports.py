"""The ports of the developer tools; storage implements them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from core_server.developer_tools.domain.cli_response import CliResponse, ReportedAnswer
from core_server.developer_tools.domain.cli_session import CliSession, StreamPosition
from core_server.developer_tools.domain.sandbox_reset import TestReset
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion


class SessionLimitReached(Exception):
    """The merchant already has MAX_OPEN_SESSIONS open sessions of other devices."""


class CliSessionRepository(Protocol):
    async def open_within_limit(
        self,
        session_id: str,
        merchant_id: str,
        device_name: str,
        now: datetime,
        expires_at: datetime,
        limit: int,
        completion_for: Callable[[CliSession], IdempotencyCompletion] | None,
    ) -> CliSession:
        """In one transaction: closes the device's open session, refuses (SessionLimitReached) when `limit`
        other sessions are open at `now`, inserts the session starting at the log's current horizon, and
        stores `completion_for(session)` (an IdempotencyCompletion, or None) with it. IdCollision on a
        taken id."""

    async def get(self, merchant_id: str, session_id: str) -> CliSession | None: ...

    async def close(self, merchant_id: str, session_id: str, now: datetime) -> CliSession | None:
        """Closes it (once: a closed session keeps its first closing time); None when unknown."""

    async def record_response(
        self, response_id: str, session: CliSession, event_id: str, answer: ReportedAnswer, now: datetime
    ) -> CliResponse | None:
        """None when `event_id` is no TEST event of the session's merchant."""

    async def list_responses(
        self, session_id: str, limit: int, starting_after: str | None
    ) -> Page[CliResponse]: ...

    async def response_exists(self, session_id: str, response_id: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """A TEST event read from the log, with its place in it."""

    id: str
    type: str
    payload: Mapping[str, Any]
    position: StreamPosition


class TestEventLog(Protocol):
    async def position_of(self, merchant_id: str, event_id: str) -> StreamPosition | None:
        """Where a TEST event of the merchant lies in the log; None when it is not (or no longer) there."""

    async def after(self, merchant_id: str, position: StreamPosition, limit: int) -> list[LoggedEvent]:
        """The merchant's TEST events after `position` in (tx, seq) order, every type, only those no
        running transaction can still precede (so a later read never finds one before them)."""


class TestDataStore(Protocol):
    async def reset(
        self,
        merchant_id: str,
        completion_for: Callable[[TestReset], IdempotencyCompletion] | None,
        keep_key: str | None,
    ) -> TestReset:
        """Deletes every TEST object of the merchant and its TEST clock in one transaction, with the
        idempotent answer `completion_for(result)`; keeps the idempotency record of `keep_key` (the
        reset's own)."""
