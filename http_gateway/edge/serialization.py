"""What every context's serializers share: the JSON alias, the list envelope, the environment table, and
the helpers for enum -> string tables and optional proto fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.v1 import common_pb2

JSON = dict[str, Any]

ENVIRONMENT_NAMES: Mapping[int, str | None] = {
    common_pb2.ENVIRONMENT_UNSPECIFIED: None,
    common_pb2.ENVIRONMENT_LIVE: "live",
    common_pb2.ENVIRONMENT_TEST: "test",
}


def inverse(table: Mapping[int, str | None]) -> dict[str, int]:
    """String -> enum for input; UNSPECIFIED (0) is never a value a client may send."""
    return {name: value for value, name in table.items() if name is not None and value != 0}


ENVIRONMENT_VALUES = inverse(ENVIRONMENT_NAMES)


def opt(message: Any, name: str) -> Any:
    """The value of an `optional` proto field, or None (JSON null) when unset."""
    return getattr(message, name) if message.HasField(name) else None


def list_json(data: list[JSON], *, url: str, has_more: bool, total_count: int | None = None) -> JSON:
    out: JSON = {"object": "list", "data": data, "has_more": has_more, "url": url}
    if total_count is not None:
        out["total_count"] = total_count
    return out
