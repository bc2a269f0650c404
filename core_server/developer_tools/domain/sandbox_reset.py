"""The answer of a TEST reset (DESIGN §10.5): how many objects of each kind were deleted, in order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TestReset:
    deleted: tuple[tuple[str, int], ...]
    """(object name, count), in the order the reset deleted them."""

    __test__ = False  # not a pytest class, whatever its name
