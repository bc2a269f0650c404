"""DESIGN §10.9: no set of merchants can hold the delivery queue — slots are shared round-robin across
merchants with a reserve for merchants with nothing in flight, and an endpoint that keeps timing out is
paused with back-off (webhook_pause.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.webhooks.domain.webhook_delivery import DeliveryStatus
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpointStatus
from core_server.webhooks.domain.webhook_pause import FIRST_PAUSE, PAUSE_AFTER_TIMEOUTS
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import new_charge, new_owner
from tests.support.webhook_dispatch import dispatching
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def hanging_now(receiver: WebhookReceiver, prefix: str) -> int:
    return sum(1 for d in receiver.received() if d.path.startswith(prefix))


async def test_merchant_b_is_delivered_within_2_s_while_two_merchants_endpoints_hang(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    # The production defaults (32 slots, 8 per endpoint, 16 per merchant): before §10.9 merchants A and C
    # took 16 slots each, oldest first, and B's event waited for a 5 s time-out to free one.
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=32,
        webhook_endpoint_concurrency=8,
        webhook_merchant_concurrency=16,
        webhook_reserved_slots=None,
        webhook_timeout_seconds=5.0,
    )
    core = await make_core(settings, clock)
    try:
        merchant_a, merchant_c, merchant_b = [await new_owner(core) for _ in range(3)]
        for name, merchant in (("a", merchant_a), ("c", merchant_c)):
            for n in range(10):
                path = f"/{name}{n}"
                receiver.behave(path, mode="hang")
                await core.webhooks.create(merchant, receiver.url(path), ["*"], None)
            for _ in range(3):
                await new_charge(core, merchant)  # a backlog of 30+ deliveries each, all due before B's
        await core.webhooks.create(merchant_b, receiver.url("/b"), ["*"], None)
        async with dispatching(core):
            # A and C take every slot they may and hang there.
            deadline = time.monotonic() + 3.0
            while hanging_now(receiver, "/a") + hanging_now(receiver, "/c") < 24:
                assert time.monotonic() < deadline, "A and C never filled the shared slots"
                await asyncio.sleep(0.02)
            assert hanging_now(receiver, "/a") > 0 and hanging_now(receiver, "/c") > 0
            started = time.monotonic()
            await new_charge(core, merchant_b)
            await receiver.wait_for(1, "/b", timeout=2.0)  # long before A's and C's 5 s time-outs
            assert time.monotonic() - started < 2.0
            # Round-robin: neither hanging merchant got more than its even share of the shared slots.
            assert abs(hanging_now(receiver, "/a") - hanging_now(receiver, "/c")) <= 1
    finally:
        await core.close()


async def test_an_endpoint_that_keeps_timing_out_is_paused_then_probed_once_and_a_success_resets_it(
    isolated_core: Core, clock: SettableClock, receiver: WebhookReceiver
) -> None:
    core = isolated_core  # 1 s time-out, 4 slots per endpoint
    owner = await new_owner(core)
    receiver.behave("/silent", mode="hang")
    endpoint = await core.webhooks.create(owner, receiver.url("/silent"), ["charge.created"], None)
    for _ in range(PAUSE_AFTER_TIMEOUTS):
        await new_charge(core, owner)
    assert await core.dispatcher.run_once() == PAUSE_AFTER_TIMEOUTS  # all time out together

    # Paused: new events for it are due now, yet no attempt is made, however often the loop claims.
    for _ in range(2):
        await new_charge(core, owner)
    assert await core.dispatcher.run_once() == 0
    clock.advance(FIRST_PAUSE - timedelta(seconds=1))
    assert await core.dispatcher.run_once() == 0
    # Deferred, not dropped: still pending, and the endpoint's DESIGN §7 status is untouched by the pause.
    (listed,) = [e for e in await core.webhooks.list(owner) if e.id == endpoint.id]
    assert listed.status is WebhookEndpointStatus.ENABLED

    # The pause over, one probe goes alone, though two deliveries are due; while it is out, no claim takes
    # another. It times out too: the next pause is twice as long.
    clock.advance(timedelta(seconds=2))
    probe = asyncio.create_task(core.dispatcher.run_once())
    await receiver.wait_for(PAUSE_AFTER_TIMEOUTS + 1, "/silent", timeout=0.9)
    assert await core.dispatcher.run_once() == 0
    assert await probe == 1
    clock.advance(FIRST_PAUSE * 2 - timedelta(seconds=1))
    assert await core.dispatcher.run_once() == 0

    # The receiver answers again: the next probe succeeds, the pause is lifted and the count reset, so
    # everything due by now goes at once — the new delivery and the timed-out ones, whose retries (1 min
    # after each time-out) fell due while the endpoint was paused: deferred, never dropped.
    receiver.behave("/silent", status=200)
    clock.advance(timedelta(seconds=2))
    assert await core.dispatcher.run_once() == 1
    assert await core.dispatcher.drain() == PAUSE_AFTER_TIMEOUTS + 1
    page = await core.webhooks.deliveries(owner, endpoint.id, limit=10, starting_after=None)
    assert [d.status for d in page.items] == [DeliveryStatus.SUCCEEDED] * (PAUSE_AFTER_TIMEOUTS + 2)
