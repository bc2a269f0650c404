"""A served gateway gets the core's collector settings; an app built in a test process does not."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest
from connect.gc_tuning import OLDER_THRESHOLDS, YOUNG_THRESHOLD

from http_gateway.app import create_app, tuned_for_serving
from http_gateway.config import Settings


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _settle_listeners(app: object) -> list[object]:
    """Listeners wait in Sanic's `_future_listeners` until the server starts."""
    return [
        future.listener
        for future in app._future_listeners  # type: ignore[attr-defined]
        if future.event == "before_server_start" and future.listener.__name__ == "settle_collector"
    ]


@pytest.mark.usefixtures("restored_gc")
def test_a_served_gateway_tunes_and_freezes_its_collector_before_serving(settings: Settings) -> None:
    app = tuned_for_serving(create_app(settings, name="gc_tuned"))
    [settle] = _settle_listeners(app)
    gc.unfreeze()
    asyncio.run(settle(app))  # type: ignore[operator]
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    assert gc.get_freeze_count() > 0


def test_an_app_built_in_a_test_leaves_the_collector_alone(settings: Settings) -> None:
    assert _settle_listeners(create_app(settings, name="gc_untouched")) == []
