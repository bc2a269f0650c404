"""Server-side dashboard sessions in Redis: the cookie holds only a random id, so "Sign out" (or a
password change, through the token's revocation) ends the session on the server.

A session lasts one hour idle (every page view renews it) and never beyond its dashboard token's
expiry. The Redis key is a hash of the id: a Redis dump hands out no usable cookie.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

IDLE_SECONDS = 3600
TEST = "test"
LIVE = "live"
ENVIRONMENTS = (TEST, LIVE)
_FLASH_SECONDS = 120


@dataclass(frozen=True, slots=True)
class DashboardSession:
    session_id: str
    merchant_id: str
    token: str
    token_expires_at: float
    environment: str
    csrf: str

    @property
    def test_mode(self) -> bool:
        return self.environment == TEST

    def _stored(self) -> str:
        data = {
            "merchant_id": self.merchant_id,
            "token": self.token,
            "token_expires_at": self.token_expires_at,
            "environment": self.environment,
            "csrf": self.csrf,
        }
        return json.dumps(data, separators=(",", ":"))


class SessionStore:
    """Sessions of one gateway namespace; `now` is injectable for the expiry rule."""

    def __init__(self, redis: Any, namespace: str, *, now: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._prefix = f"{namespace}:dashboard:session:"
        self._now = now

    def _key(self, session_id: str) -> str:
        return self._prefix + hashlib.sha256(session_id.encode()).hexdigest()

    async def create(self, merchant_id: str, token: str, token_lifetime: int) -> DashboardSession:
        """A new session in TEST mode (DESIGN §10.7: TEST by default)."""
        session = DashboardSession(
            session_id=secrets.token_urlsafe(32),
            merchant_id=merchant_id,
            token=token,
            token_expires_at=self._now() + token_lifetime,
            environment=TEST,
            csrf=secrets.token_urlsafe(32),
        )
        await self._redis.set(self._key(session.session_id), session._stored(), ex=IDLE_SECONDS)
        return session

    async def load(self, session_id: str) -> DashboardSession | None:
        """The live session for a cookie value, renewing its idle hour; None when unknown or over."""
        if not session_id or len(session_id) > 100 or not session_id.isascii():
            return None
        raw = await self._redis.getex(self._key(session_id), ex=IDLE_SECONDS)
        if raw is None:
            return None
        data = json.loads(raw)
        session = DashboardSession(session_id=session_id, **data)
        if session.token_expires_at <= self._now():
            await self.end(session_id)
            return None
        return session

    async def switch_environment(self, session: DashboardSession, environment: str) -> DashboardSession:
        changed = replace(session, environment=environment if environment in ENVIRONMENTS else TEST)
        await self._redis.set(self._key(session.session_id), changed._stored(), ex=IDLE_SECONDS)
        return changed

    async def end(self, session_id: str) -> None:
        await self._redis.delete(self._key(session_id), self._key(session_id) + ":flash")

    async def flash(self, session: DashboardSession, message: str, kind: str = "success") -> None:
        """A one-shot message for the next page (post/redirect/get keeps reloads harmless)."""
        payload = json.dumps({"message": message, "kind": kind})
        await self._redis.set(self._key(session.session_id) + ":flash", payload, ex=_FLASH_SECONDS)

    async def take_flash(self, session: DashboardSession) -> dict[str, str] | None:
        raw = await self._redis.getdel(self._key(session.session_id) + ":flash")
        return json.loads(raw) if raw else None
