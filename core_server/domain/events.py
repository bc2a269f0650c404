"""Domain events: what happened to an entity, written to the outbox with the state that caused it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class ChargeEventType(enum.Enum):
    CREATED = "charge.created"
    COMPLETED = "charge.completed"
    FAILED = "charge.failed"
    REFUNDED = "charge.refunded"
    DISPUTED = "charge.disputed"


@dataclass(frozen=True, slots=True)
class ChargeEvent:
    type: ChargeEventType
    charge_id: str
    occurred_at: datetime
