"""What the portal use cases need from storage (the PostgreSQL adapter: billing/storage)."""

from __future__ import annotations

from typing import Protocol

from core_server.billing.domain.portal_session import PortalSession


class PortalSessionRepository(Protocol):
    async def insert(self, session: PortalSession) -> None:
        """Raises IdCollision when the id (or, astronomically unlikely, the token digest) is taken."""

    async def find_by_digest(self, token_digest: str) -> PortalSession | None:
        """The session whose token has this digest, expired or not (the caller decides)."""
