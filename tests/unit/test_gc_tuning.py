"""The collector settings every serving process takes: young objects die cheap, startup objects stay out."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from connect.gc_tuning import (
    OLDER_THRESHOLDS,
    YOUNG_THRESHOLD,
    freeze_startup_objects,
    tune_for_serving,
)


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@pytest.mark.usefixtures("restored_gc")
def test_thresholds_let_request_objects_die_young() -> None:
    tune_for_serving()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    assert YOUNG_THRESHOLD > 700  # above CPython's default, or the change would be no change


@pytest.mark.usefixtures("restored_gc")
def test_freeze_leaves_startup_objects_out_of_later_collections() -> None:
    gc.unfreeze()
    built_at_start = [[n] for n in range(100)]  # tracked containers, as the wiring is
    freeze_startup_objects()
    assert gc.get_freeze_count() >= len(built_at_start)
    # Nothing of it is left in the oldest generation for a full collection to walk.
    assert not any(obj is built_at_start for obj in gc.get_objects(generation=2))


@pytest.mark.usefixtures("restored_gc")
def test_cycles_made_after_freezing_are_still_collected() -> None:
    freeze_startup_objects()

    class Node:
        other: object = None

    a, b = Node(), Node()
    a.other, b.other = b, a
    del a, b
    assert gc.collect() >= 2
