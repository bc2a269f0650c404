"""The two environments every object lives in."""

from __future__ import annotations

import enum


class Environment(enum.Enum):
    """Taken from the API key: a test key never sees live objects and vice versa."""

    LIVE = "live"
    TEST = "test"

    @property
    def livemode(self) -> bool:
        return self is Environment.LIVE
