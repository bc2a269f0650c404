"""Cursor pagination as every list of the API does it (spec: limit, starting_after, has_more, total_count).

Lists are newest first; `starting_after` names the last object of the previous page and must be an
object of the caller's own list; `total_count` (where a list shows it) counts everything that matches
the filters, not just the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from core_server.kernel.domain.errors import ParameterInvalid

T = TypeVar("T")

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
MAX_UNIX_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z: beyond it a datetime cannot hold the bound


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: Sequence[T]
    has_more: bool
    total_count: int | None = None

    @classmethod
    def of(cls, fetched: Sequence[T], limit: int, total_count: int | None = None) -> Page[T]:
        """From `limit + 1` fetched rows: the extra one only says that more follow."""
        return cls(items=fetched[:limit], has_more=len(fetched) > limit, total_count=total_count)


def page_limit(limit: int) -> int:
    """0 (absent) is the default; anything else must lie in 1..MAX_LIMIT."""
    if limit == 0:
        return DEFAULT_LIMIT
    if not 1 <= limit <= MAX_LIMIT:
        raise ParameterInvalid(f"limit must be between 1 and {MAX_LIMIT}.", param="limit")
    return limit


def unix_bound(value: int | None, param: str) -> datetime | None:
    """A `created_after`/`created_before` filter in Unix seconds."""
    if value is None:
        return None
    if not 0 <= value <= MAX_UNIX_SECONDS:
        raise ParameterInvalid(f"{param} must be a Unix timestamp in seconds.", param=param)
    return datetime.fromtimestamp(value, tz=UTC)


async def require_cursor(
    starting_after: str | None, noun: str, exists: Callable[[str], Awaitable[bool]]
) -> None:
    """`starting_after` must name an object of the caller's own list (another tenant's is unknown)."""
    if starting_after is not None and not await exists(starting_after):
        raise ParameterInvalid(
            f"starting_after names no {noun} of yours: '{starting_after[:100]}'.", param="starting_after"
        )


def page_in_order(
    ordered: Sequence[T], id_of: Callable[[T], str], limit: int, starting_after: str | None, noun: str
) -> Page[T]:
    """A page of a short list already held in memory (in its own order), with its total count.

    `starting_after` must name an object of the list, as for the lists read from storage.
    """
    start = 0
    if starting_after is not None:
        ids = [id_of(item) for item in ordered]
        if starting_after not in ids:
            raise ParameterInvalid(
                f"starting_after names no {noun} of yours: '{starting_after[:100]}'.", param="starting_after"
            )
        start = ids.index(starting_after) + 1
    return Page.of(ordered[start : start + limit + 1], limit, total_count=len(ordered))
