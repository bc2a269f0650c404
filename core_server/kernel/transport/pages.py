"""A list page across gRPC: what every List RPC reads from its request and writes into its response.

Written once so the lists cannot drift apart: an absent `optional int32 limit` is read as 0 (the
application's default, `page_limit`), an empty `starting_after` as no cursor; `total_count` is written
only into a response that carries it — an `optional` one left unset when the page was not counted, a
plain one 0, as the wire cannot tell those apart.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict

from google.protobuf.message import Message

from core_server.kernel.application.pagination import Page


class PageRequest(Protocol):
    """The paging fields every List request has (`optional int32 limit`, `string starting_after`)."""

    @property
    def limit(self) -> int: ...

    @property
    def starting_after(self) -> str: ...


class PageQuery(TypedDict):
    limit: int
    starting_after: str | None


def page_query(request: PageRequest) -> PageQuery:
    """The page asked for, as the list use cases take it (`**page_query(request)`)."""
    return PageQuery(limit=request.limit, starting_after=request.starting_after or None)


def page_fields(page: Page[Any], response: type[Message]) -> dict[str, Any]:
    """`has_more`, and `total_count` where the `response` message has that field (`**page_fields(...)`)."""
    fields: dict[str, Any] = {"has_more": page.has_more}
    total_count = response.DESCRIPTOR.fields_by_name.get("total_count")
    if total_count is not None:
        fields["total_count"] = page.total_count if total_count.has_presence else page.total_count or 0
    return fields
