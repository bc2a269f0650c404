"""Domain events: what happened to one aggregate, kept on it until its turn commits them to the outbox."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.state_copies import Immutable


@dataclass(frozen=True, slots=True)
class DomainEvent(Immutable):
    """`type` is the spec's event type (`charge.completed`); the application renders the payload."""

    type: str
    object_id: str
    occurred_at: datetime
