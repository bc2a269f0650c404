"""What every answer shares: the JSON text of the objects the core rendered, passed through untouched,
the list envelope assembled around them, and the few tables the gateway's own answers need.

The core renders each public object once (`object_json`, docs/architecture.md "a resource's public
JSON"); the gateway answers that text as it is and never parses it: a single object is the body itself,
a list is the envelope written around the objects' texts. Only the answers the gateway builds itself
(tokens, checkout page data, CLI sessions, the test clock and reset) are encoded here, by `gateway_json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
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


def enum_names(enum: Any, prefix: str) -> dict[str, int]:
    """REST name -> value of a closed proto enum whose value names are `prefix` + the REST name, in the
    enum's order; UNSPECIFIED (0) is never a value a client may send."""
    return {name.removeprefix(prefix): value for name, value in enum.items() if value != 0}


def opt(message: Any, name: str) -> Any:
    """The value of an `optional` proto field, or None (JSON null) when unset."""
    return getattr(message, name) if message.HasField(name) else None


def gateway_json(value: Any) -> str:
    """JSON text of an answer the gateway builds itself, encoded as the core encodes its objects."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def list_body(objects: Iterable[str], *, url: str, has_more: bool, total_count: int | None = None) -> str:
    """The list envelope written around the objects' JSON texts, which are joined and never parsed:
    `{"object":"list","data":[…],"has_more":…,"url":…[,"total_count":…]}`."""
    tail = f'],"has_more":{"true" if has_more else "false"},"url":{gateway_json(url)}'
    if total_count is not None:
        tail += f',"total_count":{int(total_count)}'
    return '{"object":"list","data":[' + ",".join(objects) + tail + "}"
