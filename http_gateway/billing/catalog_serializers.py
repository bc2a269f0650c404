"""pb2 catalog objects (tax rates, plans, prices) -> the public JSON the core rendered, and list paging."""

from __future__ import annotations

import json
from typing import Any

from http_gateway.edge.pagination import PAGE_QUERY
from http_gateway.edge.serialization import JSON

LIST_QUERY = PAGE_QUERY
# The proto's 0 means "default", so an explicit limit=0 can only be refused here (as for charges).


def catalog_object_json(message: Any) -> JSON:
    """The object exactly as the core rendered it (one shape per resource)."""
    view: JSON = json.loads(message.object_json)
    return view
