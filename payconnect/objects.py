"""API answers as objects: a dict with attribute access, and lists that page themselves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["ApiObject", "ListObject", "to_object"]


class ApiObject(dict[str, Any]):
    """A JSON object of the API: `charge["status"]` and `charge.status` alike; nested objects too."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def to_object(value: Any) -> Any:
    if isinstance(value, dict):
        return ApiObject({key: to_object(item) for key, item in value.items()})
    if isinstance(value, list):
        return [to_object(item) for item in value]
    return value


class ListObject(ApiObject):
    """One page (`data`, `has_more`, `url`); `auto_paging_iter()` walks this page and every later one,
    asking for the next with `starting_after` = the last id seen, until `has_more` is false."""

    _next_page: Callable[[str], ListObject] | None = None

    @classmethod
    def of(cls, body: dict[str, Any], next_page: Callable[[str], ListObject] | None) -> ListObject:
        page = cls(to_object(body))
        page._next_page = next_page
        return page

    @property
    def data(self) -> list[Any]:
        items: list[Any] = self.get("data", [])
        return items

    def __iter__(self) -> Iterator[Any]:
        """The objects of this page (not the dict's keys)."""
        return iter(self.data)

    def auto_paging_iter(self) -> Iterator[Any]:
        page: ListObject = self
        while True:
            yield from page.data
            if not page.get("has_more") or not page.data or page._next_page is None:
                return
            page = page._next_page(str(page.data[-1]["id"]))
