"""Deep copies of aggregate state that cost what they copy: the actors' working copies and a read's view.

An actor works on a deep copy of its aggregate and keeps it only once the turn's write committed
(subscription_actor.py, charge_actor.py); a charge read shows its due timers on a copy (`Charge.seen_at`).
`copy.deepcopy` reaches a slotted dataclass through `__reduce_ex__` and a Python-level `__setstate__`,
and rebuilds every datetime the same way: a subscription holding one open invoice took about 1 ms to
copy, the largest piece of the billing run's own Python work after its statements (BENCHMARKS.md,
"Speed, round 4"). Two rules make the copy cheap without changing what it duplicates:

- `Immutable`: a frozen dataclass whose fields hold only immutable values is its own copy, as a
  `Decimal` or a `str` is. Only such classes may take it (`tests/unit/kernel/test_state_copies.py`
  checks every one).
- `FieldCopy`: a mutable dataclass copies field by field, keeping a value of an immutable type as it is
  and deep-copying everything else (lists, dicts, sets, other dataclasses), so no mutable object is ever
  shared between the copy and the original.
"""

from __future__ import annotations

import copy
import dataclasses
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any, Self

IMMUTABLE_VALUES: frozenset[type] = frozenset(
    {str, int, float, bool, bytes, type(None), datetime, date, timedelta, Decimal}
)
"""Types whose values never change: kept by a copy (subclasses of these are not assumed to be)."""

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def is_immutable_value(value: object) -> bool:
    """True for a value a copy may share: an immutable type, an enum member, an `Immutable`, or a tuple
    or frozenset of such values."""
    if type(value) in IMMUTABLE_VALUES or isinstance(value, (Enum, Immutable)):
        return True
    if isinstance(value, (tuple, frozenset)) and type(value) in (tuple, frozenset):
        return all(is_immutable_value(item) for item in value)
    return False


class Immutable:
    """Mixin of a frozen dataclass of immutable values: copies and deep copies are the object itself."""

    __slots__ = ()

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self


class FieldCopy:
    """Mixin of a mutable dataclass: its deep copy is built field by field (see the module docstring)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        cls = type(self)
        new = object.__new__(cls)
        memo[id(self)] = new  # before the fields: an object met again below is this copy
        for name in _field_names(cls):
            value = getattr(self, name)
            if not (type(value) in IMMUTABLE_VALUES or isinstance(value, (Enum, Immutable))):
                value = copy.deepcopy(value, memo)
            object.__setattr__(new, name, value)
        return new
