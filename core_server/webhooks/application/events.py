"""The event log as merchants see it: list, retrieve, and resend an event to the current endpoints."""

from __future__ import annotations

import builtins
import re

from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.event_types import parse_type_filter
from core_server.webhooks.application.ports import EventQuery, EventRepository
from core_server.webhooks.domain.events import StoredEvent
from core_server.webhooks.domain.webhook_delivery import WebhookDelivery

EVENT_ID_RE = re.compile(r"^evt_[A-Za-z0-9]{24}$")


def event_not_found(event_id: str) -> NotFound:
    return NotFound(f"No such event: '{event_id[:100]}'", param="id")


class EventService:
    def __init__(self, events: EventRepository, clocks: Clocks) -> None:
        self._events = events
        self._clocks = clocks

    async def list(
        self,
        owner: Owner,
        *,
        limit: int,
        type_filter: str | None,
        starting_after: str | None,
        object_id: str | None = None,
    ) -> Page[StoredEvent]:
        exact, prefix = parse_type_filter(type_filter) if type_filter else (None, None)
        query = EventQuery(
            merchant_id=owner.merchant_id,
            environment=owner.environment,
            limit=page_limit(limit),
            type=exact,
            type_prefix=prefix,
            starting_after=starting_after or None,
            object_id=object_id or None,
        )
        if query.starting_after is not None and not (
            EVENT_ID_RE.match(query.starting_after) and await self._events.cursor_exists(query)
        ):
            raise ParameterInvalid(
                f"starting_after names no event of yours: '{query.starting_after[:100]}'.",
                param="starting_after",
            )
        return await self._events.list(query)

    async def get(self, owner: Owner, event_id: str) -> StoredEvent:
        event = await self._events.get(event_id) if EVENT_ID_RE.match(event_id) else None
        foreign = event is not None and (
            event.merchant_id != owner.merchant_id or event.environment is not owner.environment
        )
        if event is None or foreign:
            raise event_not_found(event_id)
        return event

    async def resend(self, owner: Owner, event_id: str) -> builtins.list[WebhookDelivery]:
        """Queues the event for every endpoint that is subscribed to its type and not disabled *now*.

        A delivery of the pair that is still pending or in flight is reset to a first attempt due now;
        an attempt already in flight finishes first, so a pair is never sent twice at the same time.
        """
        event = await self.get(owner, event_id)
        now = (await self._clocks.resolve(owner.merchant_id, owner.environment)).now()
        return await self._events.requeue(event, now)
