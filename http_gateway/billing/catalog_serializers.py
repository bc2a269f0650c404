"""pb2 catalog objects (tax rates, plans, prices) -> the public JSON the core rendered, and list paging."""

from __future__ import annotations

import json
from typing import Any

from http_gateway.edge.errors import ApiError
from http_gateway.edge.serialization import JSON
from http_gateway.edge.validation import Kind

LIST_QUERY: dict[str, Kind] = {"limit": "int32", "starting_after": "str"}
# The proto's 0 means "default", so an explicit limit=0 can only be refused here (as for charges).
LIMIT_RANGE = (1, 100)


def catalog_object_json(message: Any) -> JSON:
    """The object exactly as the core rendered it (one shape per resource)."""
    view: JSON = json.loads(message.object_json)
    return view


def list_limit(query: dict[str, Any]) -> int:
    limit = query.get("limit", 0)
    low, high = LIMIT_RANGE
    if "limit" in query and not low <= limit <= high:
        raise ApiError.invalid("limit", f"Invalid limit: must be between {low} and {high}.")
    return int(limit)
