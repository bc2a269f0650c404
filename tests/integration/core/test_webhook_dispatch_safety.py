"""Bad receivers stall nobody; two cores deliver a 500-event backlog with no pair sent twice at once."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator

import pytest

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.outbox import append_events
from core_server.webhooks.domain.webhook_delivery import DeliveryStatus
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import new_charge, new_owner
from tests.support.webhook_dispatch import dispatching
from tests.webhook_receivers import WebhookReceiver, refused_url, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


async def test_hanging_redirecting_huge_and_refusing_receivers_do_not_stall_a_good_one(
    isolated_core: Core, receiver: WebhookReceiver
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    receiver.behave("/hang", mode="hang")
    receiver.behave("/redirect", mode="redirect", location=receiver.url("/target"))
    receiver.behave("/huge", mode="huge")
    endpoints = {
        name: await core.webhooks.create(owner, url, ["*"], None)
        for name, url in (
            ("hang", receiver.url("/hang")),
            ("redirect", receiver.url("/redirect")),
            ("huge", receiver.url("/huge")),
            ("refused", refused_url()),
            ("good", receiver.url("/good")),
        )
    }
    await new_charge(core, owner)

    started = time.monotonic()
    attempts = asyncio.create_task(core.dispatcher.run_once())
    await receiver.wait_for(1, "/good", timeout=0.9)  # before the hanging receiver's 1 s time-out
    assert await attempts == 5
    assert time.monotonic() - started < 3.0  # the 1 s time-out bounds the hanging receiver

    async def last_attempt(name: str) -> tuple[DeliveryStatus, int | None, str | None]:
        page = await core.webhooks.deliveries(owner, endpoints[name].id, limit=1, starting_after=None)
        (delivery,) = page.items
        (attempt,) = delivery.attempts
        return delivery.status, attempt.status_code, attempt.error

    assert await last_attempt("good") == (DeliveryStatus.SUCCEEDED, 200, None)
    assert await last_attempt("huge") == (DeliveryStatus.SUCCEEDED, 200, None)  # the body is never read
    status, code, error = await last_attempt("hang")
    assert (status, code) == (DeliveryStatus.PENDING, None) and error == "no answer within 1 s"
    status, code, error = await last_attempt("redirect")
    assert (status, code) == (DeliveryStatus.PENDING, 302) and error
    assert receiver.received("/target") == []  # redirects are never followed
    status, code, error = await last_attempt("refused")
    assert (status, code, error) == (DeliveryStatus.PENDING, None, "connection failed")


async def test_a_backlog_for_one_slow_endpoint_does_not_take_every_slot(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    settings = dataclasses.replace(isolated_settings, webhook_concurrency=4, webhook_endpoint_concurrency=2)
    core = await make_core(settings, clock)
    try:
        owner = await new_owner(core)
        receiver.behave("/slow", mode="hang")
        await core.webhooks.create(owner, receiver.url("/slow"), ["*"], None)
        for _ in range(6):
            await new_charge(core, owner)
        await core.webhooks.create(owner, receiver.url("/good"), ["*"], None)
        await new_charge(core, owner)  # last in the queue: 7 for /slow first, then 1 for /good
        async with dispatching(core):
            await receiver.wait_for(1, "/good", timeout=0.9)  # before the 1 s time-outs free a slot
    finally:
        await core.close()


async def test_a_notify_wakes_the_dispatcher_at_once_instead_of_waiting_for_the_poll(
    isolated_core: Core, receiver: WebhookReceiver
) -> None:
    core = isolated_core
    core.dispatcher.poll_interval = 60.0
    owner = await new_owner(core)
    await core.webhooks.create(owner, receiver.url("/hook"), ["charge.created"], None)
    async with dispatching(core):
        await asyncio.sleep(0.3)  # the loop is idle, waiting on LISTEN
        await new_charge(core, owner)
        await receiver.wait_for(1, "/hook", timeout=3.0)


async def test_two_cores_deliver_a_500_event_backlog_with_no_pair_sent_twice_at_once(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    settings = dataclasses.replace(isolated_settings, webhook_concurrency=8, webhook_endpoint_concurrency=8)
    first, second = await make_core(settings, clock), await make_core(settings, clock)
    try:
        owner = await new_owner(first)
        endpoint = await first.webhooks.create(owner, receiver.url("/hook"), ["*"], None)
        receiver.behave("/hook", delay=0.003)
        now = clock.now()
        events = [
            OutboxEvent(
                f"evt_backlog{n:017d}",
                "charge.created",
                f"ch_{n}",
                {
                    "id": f"evt_backlog{n:017d}",
                    "object": "event",
                    "type": "charge.created",
                    "created": int(now.timestamp()),
                    "livemode": False,
                    "data": {"object": {"n": n}},
                },
                now,
            )
            for n in range(500)
        ]
        async with dispatching(first, second):
            async with first.pool.connection() as conn, conn.transaction():
                assert await append_events(conn, owner.merchant_id, Environment.TEST, events) == 500
            await receiver.wait_for(500, "/hook", timeout=30.0)
            await asyncio.sleep(0.2)  # anything sent twice would arrive now
        got = receiver.received("/hook")
        assert receiver.overlaps == []
        assert sorted(d.event["id"] for d in got) == sorted(e.id for e in events)  # each exactly once
        assert receiver.max_concurrency > 1
        assert first.dispatcher.attempts_made > 0 and second.dispatcher.attempts_made > 0
        assert first.dispatcher.attempts_made + second.dispatcher.attempts_made == 500
        page = await first.webhooks.deliveries(owner, endpoint.id, limit=100, starting_after=None)
        assert all(d.status is DeliveryStatus.SUCCEEDED and len(d.attempts) == 1 for d in page.items)
    finally:
        await first.close()
        await second.close()


async def test_one_merchants_silent_endpoints_leave_slots_for_another_merchant(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    # Without the merchant cap A's four endpoints (two slots each) would fill all six slots for 3 s.
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=6,
        webhook_endpoint_concurrency=2,
        webhook_merchant_concurrency=3,
        webhook_timeout_seconds=3.0,
    )
    core = await make_core(settings, clock)
    try:
        merchant_a, merchant_b = await new_owner(core), await new_owner(core)
        hanging = [f"/a{n}" for n in range(4)]
        for path in hanging:
            receiver.behave(path, mode="hang")
            await core.webhooks.create(merchant_a, receiver.url(path), ["*"], None)
        for _ in range(4):
            await new_charge(core, merchant_a)  # a backlog: 16 deliveries due before B's
        await core.webhooks.create(merchant_b, receiver.url("/b"), ["*"], None)
        await new_charge(core, merchant_b)
        started = time.monotonic()
        async with dispatching(core):
            await receiver.wait_for(1, "/b", timeout=2.0)  # before A's 3 s time-outs free a slot
            assert time.monotonic() - started < 2.0
            await asyncio.sleep(0.3)  # anything A could still claim would be sent by now
            assert sum(len(receiver.received(path)) for path in hanging) == 3  # A holds its cap, no more
    finally:
        await core.close()
