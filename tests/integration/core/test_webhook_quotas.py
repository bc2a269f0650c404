"""The dispatcher's share of a core (issue 27). An endpoint's quota (WEBHOOK_ENDPOINT_CONCURRENCY) counts
POSTs the receiver is answering: it is free again once the answer is in, while the attempt is recorded;
the record still holds one of the core's WEBHOOK_CONCURRENCY slots and its row's lease. A claim takes no
more of an endpoint than its quota less the attempts already in flight there. And claims and records go
over the dispatcher's own connections, so requests holding the whole shared pool do not hold them up."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager

import pytest

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.outbox import append_events
from core_server.webhooks.application.ports import AttemptRecord
from core_server.webhooks.domain.webhook_delivery import DeliveryStatus
from core_server.webhooks.storage.delivery_queue import PgDeliveryQueue
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import new_charge, new_owner
from tests.support.webhook_dispatch import dispatching
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


@pytest.fixture
def records_held(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Every record statement waits until the returned event is set (patched before the core is built,
    so the dispatcher's recorder holds the gated method)."""
    gate = asyncio.Event()
    record = PgDeliveryQueue.record

    async def held(self: PgDeliveryQueue, records: Sequence[AttemptRecord]) -> list[bool]:
        await gate.wait()
        return await record(self, records)

    monkeypatch.setattr(PgDeliveryQueue, "record", held)
    return gate


async def settled(core: Core, owner_endpoint: tuple[object, str], count: int) -> list[object]:
    owner, endpoint_id = owner_endpoint
    for _ in range(200):
        page = await core.webhooks.deliveries(owner, endpoint_id, limit=100, starting_after=None)  # type: ignore[arg-type]
        if len(page.items) == count and all(d.status is DeliveryStatus.SUCCEEDED for d in page.items):
            return list(page.items)
        await asyncio.sleep(0.05)
    raise AssertionError("the deliveries did not settle")


@asynccontextmanager
async def six_charges_to_one_endpoint(
    settings: Settings, clock: SettableClock, receiver: WebhookReceiver
) -> AsyncIterator[tuple[Core, object, str]]:
    """A core of `settings`, a merchant with one endpoint on the receiver's /hook and six charges (so six
    events queued for it); the core is closed on exit."""
    core = await make_core(settings, clock)
    try:
        owner = await new_owner(core)
        endpoint = await core.webhooks.create(owner, receiver.url("/hook"), ["*"], None)
        for _ in range(6):
            await new_charge(core, owner)
        yield core, owner, endpoint.id
    finally:
        await core.close()


async def test_an_endpoints_next_posts_go_out_while_the_answered_ones_are_being_recorded(
    isolated_settings: Settings,
    clock: SettableClock,
    isolated_pool: object,
    receiver: WebhookReceiver,
    records_held: asyncio.Event,
) -> None:
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=8,
        webhook_endpoint_concurrency=2,
        webhook_merchant_concurrency=8,
    )
    async with (
        six_charges_to_one_endpoint(settings, clock, receiver) as (core, owner, endpoint_id),
        dispatching(core),
    ):
        # No record is written yet: had the answered attempts kept the endpoint's two places, only
        # two POSTs would have gone out.
        await receiver.wait_for(6, "/hook", timeout=5.0)
        assert receiver.max_concurrency <= 2
        records_held.set()
        deliveries = await settled(core, (owner, endpoint_id), 6)
    assert all(len(d.attempts) == 1 for d in deliveries)  # type: ignore[attr-defined]
    assert sorted(d.event["id"] for d in receiver.received("/hook")) == sorted(
        {d.event["id"] for d in receiver.received("/hook")}
    )


async def test_an_attempt_being_recorded_still_holds_one_of_the_cores_slots(
    isolated_settings: Settings,
    clock: SettableClock,
    isolated_pool: object,
    receiver: WebhookReceiver,
    records_held: asyncio.Event,
) -> None:
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=4,
        webhook_endpoint_concurrency=4,
        webhook_merchant_concurrency=4,
        webhook_reserved_slots=0,
    )
    async with (
        six_charges_to_one_endpoint(settings, clock, receiver) as (core, owner, endpoint_id),
        dispatching(core),
    ):
        await receiver.wait_for(4, "/hook", timeout=5.0)
        await asyncio.sleep(0.5)  # a fifth would be out by now if records held no slot
        assert len(receiver.received("/hook")) == 4
        records_held.set()
        await settled(core, (owner, endpoint_id), 6)
    assert len(receiver.received("/hook")) == 6


async def test_a_claim_takes_no_more_of_an_endpoint_than_its_quota_less_the_attempts_in_flight(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=8,
        webhook_endpoint_concurrency=2,
        webhook_merchant_concurrency=8,
    )
    core = await make_core(settings, clock)
    try:
        owner = await new_owner(core)
        receiver.behave("/slow", delay=0.4)
        endpoint = await core.webhooks.create(owner, receiver.url("/slow"), ["*"], None)
        now = clock.now()
        events = [
            OutboxEvent(
                f"evt_quota{n:019d}",
                "charge.created",
                f"ch_{n}",
                {"id": f"evt_quota{n:019d}", "object": "event", "type": "charge.created",
                 "created": int(now.timestamp()), "livemode": False, "data": {"object": {"n": n}}},
                now,
            )
            for n in range(4)
        ]  # fmt: skip
        async with dispatching(core):
            async with core.pool.connection() as conn, conn.transaction():
                await append_events(conn, owner.merchant_id, Environment.TEST, events[:1])
            await receiver.wait_for(1, "/slow")  # the first POST is under way (0.4 s): one place of two
            async with core.pool.connection() as conn, conn.transaction():
                # Three due at once, one NOTIFY: the claim may take one of them, not two.
                await append_events(conn, owner.merchant_id, Environment.TEST, events[1:])
            await receiver.wait_for(4, "/slow", timeout=5.0)
            await settled(core, (owner, endpoint.id), 4)
        assert receiver.max_concurrency <= 2
    finally:
        await core.close()


async def test_deliveries_go_out_while_requests_hold_every_connection_of_the_shared_pool(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    settings = dataclasses.replace(isolated_settings, db_pool_max=3, db_pool_timeout_seconds=3.0)
    core = await make_core(settings, clock)
    try:
        owner = await new_owner(core)
        await core.webhooks.create(owner, receiver.url("/hook"), ["*"], None)
        await new_charge(core, owner)
        release, all_taken = asyncio.Event(), asyncio.Event()
        held: list[object] = []

        async def hold_one() -> None:
            async with core.pool.connection() as conn:
                held.append(conn)
                if len(held) == 3:
                    all_taken.set()
                await release.wait()

        holders = [asyncio.create_task(hold_one()) for _ in range(3)]
        try:
            await asyncio.wait_for(all_taken.wait(), 5.0)  # the requests' whole pool, as under full load
            async with dispatching(core):
                # The claim and the record use the dispatcher's own connections: no wait for the pool.
                await receiver.wait_for(1, "/hook", timeout=2.0)
        finally:
            release.set()
            await asyncio.gather(*holders)
    finally:
        await core.close()


async def test_an_endpoint_at_its_quota_has_its_next_rows_claimed_ahead_and_sent_as_posts_are_answered(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object, receiver: WebhookReceiver
) -> None:
    """With a backlog, one claim leases a quota's worth beyond the quota; those rows wait in the
    dispatcher and each starts when a POST is answered (no claim statement in between), while the
    receiver never has more than the quota at once."""
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=8,
        webhook_endpoint_concurrency=2,
        webhook_merchant_concurrency=8,
    )
    async with six_charges_to_one_endpoint(settings, clock, receiver) as (core, owner, endpoint_id):
        receiver.behave("/hook", delay=0.4)
        async with dispatching(core):
            await receiver.wait_for(2, "/hook")  # the quota's two POSTs are under way (0.4 s each)
            async with core.pool.connection() as conn:
                cursor = await conn.execute(
                    "SELECT count(*) AS n FROM webhook_deliveries"
                    " WHERE endpoint_id = %s AND status = 'pending' AND claim_token IS NOT NULL",
                    (endpoint_id,),
                )
                row = await cursor.fetchone()
            assert row is not None and row["n"] == 4  # two sending, two claimed ahead
            await settled(core, (owner, endpoint_id), 6)
    assert receiver.max_concurrency <= 2


async def test_rows_claimed_ahead_start_only_into_a_free_slot(
    isolated_settings: Settings,
    clock: SettableClock,
    isolated_pool: object,
    receiver: WebhookReceiver,
    records_held: asyncio.Event,
) -> None:
    """Four slots, quotas of two: /a's claim takes its two and two ahead; another merchant's hanging /b
    then takes the last two slots. /a's answered attempts are being recorded (records held), so they hold
    their slots, and its rows ahead must wait for a record, not just for an answer."""
    settings = dataclasses.replace(
        isolated_settings,
        webhook_concurrency=4,
        webhook_endpoint_concurrency=2,
        webhook_merchant_concurrency=8,
        webhook_reserved_slots=0,
    )
    core = await make_core(settings, clock)
    try:
        first, second = await new_owner(core), await new_owner(core)
        receiver.behave("/a", delay=0.3)
        receiver.behave("/b", mode="hang")
        await core.webhooks.create(first, receiver.url("/a"), ["*"], None)
        await core.webhooks.create(second, receiver.url("/b"), ["*"], None)
        for _ in range(4):
            await new_charge(core, first)
        async with dispatching(core):
            await receiver.wait_for(2, "/a", timeout=5.0)  # two sending, two claimed ahead
            for _ in range(2):
                await new_charge(core, second)
            await receiver.wait_for(2, "/b", timeout=5.0)  # the last two slots
            await asyncio.sleep(0.8)  # /a's two are answered and being recorded
            assert len(receiver.received("/a")) == 2
            records_held.set()
            await receiver.wait_for(4, "/a", timeout=5.0)
    finally:
        await core.close()
