"""CLI session use cases: open (the 5-session limit, a per-device secret), close, record and list answers."""

from __future__ import annotations

import dataclasses
import re

from connect import errors

from core_server.developer_tools.application.ports import CliSessionRepository, SessionLimitReached
from core_server.developer_tools.domain.cli_response import CliResponse, validate_answer
from core_server.developer_tools.domain.cli_session import (
    MAX_OPEN_SESSIONS,
    SESSION_LIFETIME,
    CliSession,
    new_response_id,
    new_session_id,
    session_secret,
    validate_device_name,
)
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Forbidden, NotFound, ParameterInvalid
from core_server.kernel.domain.ids import MAX_ID_ATTEMPTS, IdCollision, IdSpaceExhausted

SESSION_ID_RE = re.compile(r"^clis_[A-Za-z0-9]{24}$")
RESPONSE_ID_RE = re.compile(r"^clir_[A-Za-z0-9]{24}$")
EVENT_ID_RE = re.compile(r"^evt_[A-Za-z0-9]{24}$")


def require_test(owner: Owner, what: str) -> None:
    """TEST-only like the other sandbox tools: a live key is 403 whatever the gateway let through."""
    if owner.environment is not Environment.TEST:
        raise Forbidden(f"{what} exist only for test keys.", code=errors.TEST_MODE_ONLY.code)


def session_not_found(session_id: str) -> NotFound:
    """One answer for unknown, malformed, expired-and-closed and other tenants' sessions."""
    return NotFound(f"No such CLI session: '{session_id[:100]}'", param="id")


class CliSessionService:
    def __init__(self, sessions: CliSessionRepository, clocks: Clocks, secret_key: bytes) -> None:
        self._sessions = sessions
        self._clocks = clocks
        self._secret_key = secret_key

    def secret(self, session: CliSession) -> str:
        return session_secret(self._secret_key, session.merchant_id, session.device_name)

    async def create(self, owner: Owner, device_name: str, claim: Claim[CliSession] | None) -> CliSession:
        require_test(owner, "CLI sessions")
        name = validate_device_name(device_name)
        # Real time: a session's life is operational, whatever the merchant's sandbox clock says.
        now = self._clocks.system().now().replace(microsecond=0)
        for _ in range(MAX_ID_ATTEMPTS):
            try:
                session = await self._sessions.open_within_limit(
                    new_session_id(),
                    owner.merchant_id,
                    name,
                    now,
                    now + SESSION_LIFETIME,
                    MAX_OPEN_SESSIONS,
                    claim.completion if claim is not None else None,
                )
            except IdCollision:
                continue
            except SessionLimitReached as exc:
                raise ParameterInvalid(
                    f"A merchant may have at most {MAX_OPEN_SESSIONS} open CLI sessions; stop a "
                    "`payconnect listen` (or close a session) first.",
                    param="device_name",
                ) from exc
            return dataclasses.replace(session, secret=self.secret(session))
        raise IdSpaceExhausted("ten CLI session id collisions in a row")

    async def get(self, owner: Owner, session_id: str) -> CliSession:
        """The caller's session, open or not; anything else is 404."""
        require_test(owner, "CLI sessions")
        found = None
        if SESSION_ID_RE.match(session_id):
            found = await self._sessions.get(owner.merchant_id, session_id)
        if found is None:
            raise session_not_found(session_id)
        return found

    async def get_open(self, owner: Owner, session_id: str) -> CliSession:
        session = await self.get(owner, session_id)
        if not session.is_open(self._clocks.system().now()):
            raise session_not_found(session_id)
        return session

    async def close(self, owner: Owner, session_id: str) -> CliSession:
        await self.get(owner, session_id)
        closed = await self._sessions.close(owner.merchant_id, session_id, self._clocks.system().now())
        if closed is None:
            raise session_not_found(session_id)
        return closed

    async def record_response(
        self,
        owner: Owner,
        session_id: str,
        event_id: str,
        *,
        status_code: int | None,
        error: str | None,
        latency_ms: int | None,
    ) -> CliResponse:
        session = await self.get(owner, session_id)
        answer = validate_answer(status_code, error, latency_ms)
        if not event_id:
            raise ParameterInvalid("event_id is required.", param="event_id")
        recorded = None
        if EVENT_ID_RE.match(event_id):
            now = self._clocks.system().now().replace(microsecond=0)
            recorded = await self._sessions.record_response(new_response_id(), session, event_id, answer, now)
        if recorded is None:
            raise ParameterInvalid(
                f"event_id names no test event of yours: '{event_id[:100]}'.", param="event_id"
            )
        return recorded

    async def responses(
        self, owner: Owner, session_id: str, *, limit: int, starting_after: str | None
    ) -> Page[CliResponse]:
        session = await self.get(owner, session_id)
        checked_limit = page_limit(limit)

        async def exists(response_id: str) -> bool:
            return bool(RESPONSE_ID_RE.match(response_id)) and await self._sessions.response_exists(
                session.id, response_id
            )

        await require_cursor(starting_after, "answer of this session", exists)
        return await self._sessions.list_responses(session.id, checked_limit, starting_after)
