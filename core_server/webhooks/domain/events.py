"""Events as the log keeps them, and their JSON body exactly as delivered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.public_json import compact_json


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as kept in the log: `payload` is the spec's Event object, exactly as delivered."""

    id: str
    merchant_id: str
    environment: Environment
    type: str
    created: datetime
    payload: dict[str, Any]


EVENT_KEY_ORDER = ("id", "object", "type", "created", "livemode", "data")


def event_body(payload: Mapping[str, Any]) -> bytes:
    """The Event object as delivered and as the API shows it: compact JSON, the spec's key order on top."""
    ordered = {key: payload[key] for key in EVENT_KEY_ORDER if key in payload}
    ordered.update({key: value for key, value in payload.items() if key not in ordered})
    return compact_json(ordered).encode("utf-8")
