"""The catalog lists' query (tax rates, plans, prices). Their objects are the core's rendering
(`object_json`), answered as they are."""

from __future__ import annotations

from http_gateway.edge.pagination import PAGE_QUERY

LIST_QUERY = PAGE_QUERY
# The proto's 0 means "default", so an explicit limit=0 can only be refused here (as for charges).
