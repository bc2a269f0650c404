"""Charge events reach real local receivers once per subscribed endpoint, signed; retries follow the clock."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.payments.domain.card import CardInput
from core_server.webhooks.domain.webhook_delivery import DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus
from core_server.webhooks.storage.delivery_queue import PgDeliveryQueue
from tests.integration.core.factories import captured_charge, new_charge, new_owner
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


async def deliveries_of(core: Core, owner: Owner, endpoint: WebhookEndpoint) -> list[WebhookDelivery]:
    page = await core.webhooks.deliveries(owner, endpoint.id, limit=100, starting_after=None)
    return list(page.items)


async def test_each_charge_event_arrives_once_per_subscribed_endpoint_signed(
    isolated_core: Core, receiver: WebhookReceiver, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    everything = await core.webhooks.create(owner, receiver.url("/all"), ["*"], "all events")
    refunds = await core.webhooks.create(owner, receiver.url("/refunds"), ["charge.refunded"], None)
    off = await core.webhooks.create(owner, receiver.url("/off"), ["*"], None)
    await core.webhooks.update(owner, off.id, status="disabled")
    stranger = await new_owner(core)
    await core.webhooks.create(stranger, receiver.url("/stranger"), ["*"], None)
    live = Owner(owner.merchant_id, Environment.LIVE)
    await core.webhooks.create(live, "https://93.184.215.14/live", ["*"], None)

    charge = await captured_charge(core, owner)  # charge.created, charge.completed
    await core.charges.refund(owner, charge.id, 1_000, None)  # charge.refunded
    await core.charges.open_dispute(owner, charge.id)  # charge.disputed
    declined = await new_charge(core, owner)  # charge.created
    card = CardInput("4000000000000002", 12, 2099, "123")
    await core.checkout.complete(declined.id, "card", card, None)  # charge.failed

    assert await core.dispatcher.drain() == 7

    now = int(clock.now().timestamp())
    got_all = receiver.received("/all")
    types = Counter(d.event["type"] for d in got_all)
    assert types == Counter(
        {
            "charge.created": 2,
            "charge.completed": 1,
            "charge.refunded": 1,
            "charge.disputed": 1,
            "charge.failed": 1,
        }
    )
    assert len({d.event["id"] for d in got_all}) == 6  # each event once
    assert [d.event["type"] for d in receiver.received("/refunds")] == ["charge.refunded"]
    assert receiver.received("/off") == [] and receiver.received("/stranger") == []
    assert not any(d.path == "/live" for d in receiver.deliveries)

    for delivery in got_all:
        assert delivery.headers["content-type"].startswith("application/json")
        assert delivery.verifies(everything.secret or "", now=now)
        assert not delivery.verifies(refunds.secret or "", now=now)
        tampered = delivery.body.replace(b'"livemode":false', b'"livemode":true')
        assert tampered != delivery.body
        assert not dataclasses.replace(delivery, body=tampered).verifies(everything.secret or "", now=now)
        assert not delivery.verifies(everything.secret or "", now=now + 301)
        event = delivery.event
        assert event["object"] == "event" and event["id"].startswith("evt_") and len(event["id"]) == 28
        assert event["data"]["object"]["id"] in (charge.id, declined.id)
        stored = await core.events.get(owner, event["id"])
        assert stored.payload == event
    assert receiver.received("/refunds")[0].verifies(refunds.secret or "", now=now)

    listed = await deliveries_of(core, owner, everything)
    assert len(listed) == 6 and all(d.status is DeliveryStatus.SUCCEEDED for d in listed)
    assert all(len(d.attempts) == 1 and d.attempts[0].status_code == 200 for d in listed)


async def test_retries_follow_the_schedule_and_five_failures_make_the_endpoint_failing(
    isolated_core: Core, receiver: WebhookReceiver, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    receiver.behave("/flaky", status=500)
    endpoint = await core.webhooks.create(owner, receiver.url("/flaky"), ["charge.created"], None)
    await new_charge(core, owner)
    start = clock.now()

    assert await core.dispatcher.drain() == 1
    expected_times = [start]
    for n, delay in enumerate(
        [
            timedelta(minutes=1),
            timedelta(minutes=5),
            timedelta(minutes=30),
            timedelta(hours=2),
            timedelta(hours=24),
        ],
        start=2,
    ):
        (delivery,) = await deliveries_of(core, owner, endpoint)
        assert delivery.status is DeliveryStatus.PENDING
        assert delivery.next_attempt_at == clock.now() + delay
        status = (await core.webhooks.get(owner, endpoint.id)).status
        assert status is (WebhookEndpointStatus.FAILING if n > 5 else WebhookEndpointStatus.ENABLED)
        clock.advance(delay - timedelta(seconds=1))
        assert await core.dispatcher.drain() == 0, "nothing is due a second early"
        clock.advance(timedelta(seconds=1))
        expected_times.append(clock.now())
        assert await core.dispatcher.drain() == 1, f"attempt {n} is due"

    (delivery,) = await deliveries_of(core, owner, endpoint)
    assert delivery.status is DeliveryStatus.FAILED and delivery.next_attempt_at is None
    assert [a.attempted_at for a in delivery.attempts] == expected_times
    assert all(a.status_code == 500 and not a.succeeded and a.error for a in delivery.attempts)
    assert all(a.latency_ms >= 0 for a in delivery.attempts)
    clock.advance(timedelta(days=3))
    assert await core.dispatcher.drain() == 0
    assert len(receiver.received("/flaky")) == 6
    assert (await core.webhooks.get(owner, endpoint.id)).status is WebhookEndpointStatus.FAILING

    # Deliveries continue while failing; the next success restores `enabled`.
    receiver.behave("/flaky", status=204)
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 1
    assert (await core.webhooks.get(owner, endpoint.id)).status is WebhookEndpointStatus.ENABLED


async def test_a_disabled_endpoint_gets_nothing_and_pending_retries_wait_until_enabled(
    isolated_core: Core, receiver: WebhookReceiver, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    receiver.behave("/hook", status=503)
    endpoint = await core.webhooks.create(owner, receiver.url("/hook"), ["*"], None)
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 1
    await core.webhooks.update(owner, endpoint.id, status="disabled")
    await new_charge(core, owner)  # not queued at all
    clock.advance(timedelta(minutes=2))
    assert await core.dispatcher.drain() == 0
    receiver.behave("/hook", status=200)
    await core.webhooks.update(owner, endpoint.id, status="enabled")
    assert await core.dispatcher.drain() == 1  # the paused retry of the first event
    assert len(await deliveries_of(core, owner, endpoint)) == 1


async def test_resend_queues_the_event_for_the_endpoints_subscribed_now(
    isolated_core: Core, receiver: WebhookReceiver, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    first = await core.webhooks.create(owner, receiver.url("/first"), ["charge.created"], None)
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 1
    (event,) = (await core.events.list(owner, limit=10, type_filter=None, starting_after=None)).items
    later = await core.webhooks.create(owner, receiver.url("/later"), ["*"], None)
    await core.webhooks.create(owner, receiver.url("/other"), ["charge.refunded"], None)

    queued = await core.events.resend(owner, event.id)
    assert sorted(d.endpoint_id for d in queued) == sorted([first.id, later.id])
    assert all(d.status is DeliveryStatus.PENDING and d.attempt_count == 0 for d in queued)
    assert await core.dispatcher.drain() == 2
    assert [d.event["id"] for d in receiver.received("/first")] == [event.id, event.id]
    assert [d.event["id"] for d in receiver.received("/later")] == [event.id]
    assert receiver.received("/other") == []
    (delivery,) = await deliveries_of(core, owner, first)
    assert delivery.status is DeliveryStatus.SUCCEEDED and len(delivery.attempts) == 2


async def test_a_worker_that_dies_mid_attempt_leaves_a_lease_that_lapses_and_nothing_is_lost(
    isolated_core: Core, receiver: WebhookReceiver, clock: SettableClock
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    await core.webhooks.create(owner, receiver.url("/hook"), ["*"], None)
    for _ in range(3):
        await new_charge(core, owner)
    # A worker claims everything and dies before sending: its claim commits, no record follows.
    now = clock.now()
    lease = timedelta(seconds=core.settings.webhook_lease_seconds)
    dead = await PgDeliveryQueue(core.pool).claim(
        now,
        now + lease,
        10,
        per_endpoint=10,
        skip_endpoints=[],
        per_merchant=10,
        merchant_busy={},
        reserve=0,
        token="dead-worker",
    )
    assert len(dead) == 3
    assert await core.dispatcher.drain() == 0, "leased rows are nobody else's until the lease lapses"
    clock.advance(lease)
    assert await core.dispatcher.drain() == 3
    assert len({d.event["id"] for d in receiver.received("/hook")}) == 3
