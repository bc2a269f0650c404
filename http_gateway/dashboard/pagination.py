"""Cursor pagination for dashboard lists: the core's `starting_after` + `has_more`, as links.

Usage in a page: `cursor = page_cursor(request)` into the core request's `starting_after`, then
`Pagination.of(request, [item.id ...], reply.has_more, total)` into the template, which includes
`_pagination.html`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from sanic import Request

PAGE_SIZE = 20
_MAX_CURSOR = 100


def page_cursor(request: Request) -> str:
    """The `after` query parameter (an object id), or "" for the first page."""
    value = request.args.get("after") or ""
    return value if len(value) <= _MAX_CURSOR and value.isascii() and value.isprintable() else ""


def query_value(request: Request, name: str, limit: int = 200) -> str:
    """A filter or search term from the query string, trimmed; "" when absent or unusable."""
    value = (request.args.get(name) or "").strip()
    return value if len(value) <= limit and value.isprintable() else ""


@dataclass(frozen=True, slots=True)
class Pagination:
    first_url: str | None
    next_url: str | None
    total: int | None

    @classmethod
    def of(
        cls,
        request: Request,
        ids: Sequence[str],
        has_more: bool,
        total: int | None = None,
        keep: Mapping[str, str] | None = None,
    ) -> Pagination:
        """Links that keep the page's filters (`keep`, empty values dropped)."""
        params = {k: v for k, v in (keep or {}).items() if v}
        base = request.path

        def url(extra: Mapping[str, str]) -> str:
            query = urlencode({**params, **extra})
            return f"{base}?{query}" if query else base

        next_url = url({"after": ids[-1]}) if has_more and ids else None
        first_url = url({}) if page_cursor(request) else None
        return cls(first_url, next_url, total)
