"""Every list's page parameters: `limit` (1-100, default chosen by the core) and `starting_after`.

Written once so every list refuses the same values with the same envelope (spec "Pagination"). The
proto's 0 (or unset) `limit` means "the default", so an explicit `limit=0` can only be refused here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from http_gateway.edge.errors import ApiError
from http_gateway.edge.validation import Kind

LIMIT_RANGE = (1, 100)
PAGE_QUERY: Mapping[str, Kind] = {"limit": "int32", "starting_after": "str"}


def list_limit(query: Mapping[str, Any]) -> int:
    """The checked `limit`, or 0 (the proto's "default") when the query names none."""
    if "limit" not in query:
        return 0
    limit = query["limit"]
    low, high = LIMIT_RANGE
    if not isinstance(limit, int) or not low <= limit <= high:
        raise ApiError.invalid("limit", f"Invalid limit: must be between {low} and {high}.")
    return limit


def page_fields(query: Mapping[str, Any]) -> dict[str, Any]:
    """The list request's `limit` and `starting_after` fields, for `XxxRequest(**page_fields(query))`.

    `limit` is left out when the query names none, so an `optional` proto field stays unset and a plain
    one keeps its 0: both mean "the default"."""
    fields: dict[str, Any] = {"starting_after": query.get("starting_after", "")}
    if "limit" in query:
        fields["limit"] = list_limit(query)
    return fields
