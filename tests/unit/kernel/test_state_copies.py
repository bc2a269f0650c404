"""Deep copies of aggregate state (kernel/domain/state_copies.py): equal to the original, sharing no
mutable object with it, and `Immutable` only on classes whose fields can hold nothing mutable."""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from datetime import timedelta
from enum import Enum
from typing import Any

import pytest

from core_server.billing.domain import invoice, proration, subscription, subscription_item
from core_server.billing.domain.subscription_item import ItemProration
from core_server.kernel.domain import events
from core_server.kernel.domain.state_copies import IMMUTABLE_VALUES, FieldCopy, Immutable, is_immutable_value
from core_server.payments.domain import charge, dispute, payment, refund
from tests.support.charge_states import NOW, captured
from tests.unit.billing.test_subscription import MID, price, rate, started

DOMAIN_MODULES = (
    invoice,
    proration,
    subscription,
    subscription_item,
    events,
    charge,
    dispute,
    payment,
    refund,
)


def _all_subclasses(base: type) -> set[type]:
    found: set[type] = set(base.__subclasses__())
    for cls in list(found):
        found |= _all_subclasses(cls)
    return found


def _immutable_hint(hint: Any) -> bool:
    """A field type whose values can hold nothing mutable."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return all(_immutable_hint(arg) for arg in typing.get_args(hint))
    if origin in (tuple, frozenset):
        return all(arg is Ellipsis or _immutable_hint(arg) for arg in typing.get_args(hint))
    if origin is not None:
        return False  # list[...], dict[...], set[...]
    return hint in IMMUTABLE_VALUES or (
        isinstance(hint, type) and (issubclass(hint, Enum) or issubclass(hint, Immutable))
    )


@pytest.mark.parametrize("cls", sorted(_all_subclasses(Immutable), key=repr))
def test_an_immutable_class_is_frozen_and_every_field_is_immutable(cls: type) -> None:
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    module = vars(__import__(cls.__module__, fromlist=["_"]))
    hints = typing.get_type_hints(cls, globalns=module)
    for field in dataclasses.fields(cls):
        assert _immutable_hint(hints[field.name]), f"{cls!r}.{field.name}: {hints[field.name]}"


def test_the_domain_classes_this_relies_on_take_the_mixins() -> None:
    assert {c.__name__ for c in _all_subclasses(FieldCopy)} >= {
        "Subscription",
        "SubscriptionItem",
        "PendingProration",
        "Invoice",
        "Charge",
    }
    assert all(m.__name__ for m in DOMAIN_MODULES)


def _shares_no_mutable(original: Any, duplicate: Any, path: str = "root") -> None:
    """Walks both graphs side by side: equal shapes, and every object a copy may not share is distinct."""
    assert type(original) is type(duplicate), path
    if is_immutable_value(original):
        assert original == duplicate, path
        return
    assert original is not duplicate, f"{path} is shared between the copy and the original"
    if dataclasses.is_dataclass(original):
        for field in dataclasses.fields(original):
            _shares_no_mutable(
                getattr(original, field.name), getattr(duplicate, field.name), f"{path}.{field.name}"
            )
    elif isinstance(original, dict):
        assert original.keys() == duplicate.keys(), path
        for key in original:
            _shares_no_mutable(original[key], duplicate[key], f"{path}[{key!r}]")
    elif isinstance(original, (list, tuple)):
        assert len(original) == len(duplicate), path
        for i, (a, b) in enumerate(zip(original, duplicate, strict=True)):
            _shares_no_mutable(a, b, f"{path}[{i}]")
    elif isinstance(original, set):
        assert original == duplicate, path
    else:
        raise AssertionError(f"{path}: an object of {type(original).__name__} the walk does not know")


def rich_subscription() -> subscription.Subscription:
    """Items of two kinds, a pending proration, an open invoice with lines, notices and pending events."""
    state = started()
    state.metadata["plan"] = "pro"
    state.add_item(price("price_addon", 500), 2, ItemProration.DEFER_TO_NEXT_CYCLE, {"k": "v"}, None, MID)
    state.add_item(price("price_later", 700), 1, ItemProration.NONE, {}, None, MID)
    state.end_period(rate("19"), state.current_period_end)
    assert state.invoices and state.items and state.pending_events
    return state


def test_a_subscription_copy_is_equal_and_shares_nothing_mutable() -> None:
    original = rich_subscription()
    duplicate = copy.deepcopy(original)
    assert duplicate == original
    _shares_no_mutable(original, duplicate)
    duplicate.items[0].quantity += 1
    duplicate.invoices[0].attempt_count += 1
    duplicate.metadata["plan"] = "basic"
    assert duplicate != original and original.metadata == {"plan": "pro"}


def test_a_charge_copy_is_equal_and_shares_nothing_mutable() -> None:
    original = captured()
    original.metadata["order"] = "42"
    original.refund("re_" + "a" * 24, 1_000, "duplicate", NOW + timedelta(minutes=1))
    original.open_dispute("dp_" + "a" * 24, NOW + timedelta(minutes=2))
    duplicate = copy.deepcopy(original)
    assert duplicate == original
    _shares_no_mutable(original, duplicate)


def test_an_object_met_twice_is_copied_once() -> None:
    original = rich_subscription()
    original.upcoming = original.invoices[0]
    duplicate = copy.deepcopy(original)
    assert duplicate.upcoming is duplicate.invoices[0]
