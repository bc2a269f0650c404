"""Events rendered for the outbox: the spec's Event object around the resource's one public shape.

The application renders payloads (it knows the resource's public shape and the addresses in it);
storage only writes what it is given, in the transaction of the state change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.ids import new_event_id
from core_server.kernel.domain.public_json import unix_seconds


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    """An event about to be logged; `payload` is the spec's Event object, exactly as it is delivered."""

    id: str
    type: str
    object_id: str
    payload: dict[str, Any]
    created_at: datetime


def render_events(
    events: Iterable[DomainEvent], data_object: Mapping[str, Any], *, livemode: bool
) -> list[OutboxEvent]:
    """One Event object per domain event; `data.object` is the resource as it stands after the turn,
    rendered by the same function as the REST answer (DESIGN §7: the full resource object)."""
    rendered = []
    for event in events:
        event_id = new_event_id()
        payload = {
            "id": event_id,
            "object": "event",
            "type": event.type,
            "created": unix_seconds(event.occurred_at),
            "livemode": livemode,
            "data": {"object": dict(data_object)},
        }
        rendered.append(OutboxEvent(event_id, event.type, event.object_id, payload, event.occurred_at))
    return rendered
