"""Creates wake the webhook dispatchers after they committed, not inside their commits: a create's own
statement sends no NOTIFY (PostgreSQL serializes the commits of notifying transactions), the process's
DeliveryAnnouncer sends one after the commit for whatever was queued meanwhile, and every delivery of a
burst still goes out at once, without the poll."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from core_server.bootstrap import Core
from core_server.kernel.storage.outbox import DELIVERY_CHANNEL
from core_server.payments.storage.charge_writes import CREATE_CHARGE
from core_server.task_stop import cancel_and_wait
from core_server.webhooks.application.webhook_dispatcher import SHUTDOWN_GRACE_SECONDS
from tests.integration.core.factories import new_charge, new_owner
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def test_a_creates_own_statement_sends_no_notify() -> None:
    for claimed in (False, True):
        text = CREATE_CHARGE.text(claimed=claimed)
        assert "outbox_deliveries" in text and "pg_notify" not in text


async def test_a_burst_of_creates_is_announced_after_its_commits_with_fewer_notifies_than_creates(
    isolated_core: Core, receiver: WebhookReceiver
) -> None:
    core = isolated_core
    core.dispatcher.poll_interval = 60.0  # only a NOTIFY can wake it
    owner = await new_owner(core)
    await core.webhooks.create(owner, receiver.url("/hook"), ["charge.created"], None)
    listener = await psycopg.AsyncConnection.connect(core.settings.database_url, autocommit=True)
    try:
        await listener.execute(f"LISTEN {DELIVERY_CHANNEL}")
        dispatcher = asyncio.create_task(core.dispatcher.run_forever())
        try:
            await asyncio.sleep(0.3)  # the dispatcher is idle, waiting on LISTEN
            await asyncio.gather(*(new_charge(core, owner) for _ in range(30)))
            await receiver.wait_for(30, "/hook", timeout=5.0)
        finally:
            await cancel_and_wait(dispatcher, recancel=SHUTDOWN_GRACE_SECONDS + 1.0)
        notified = 0
        async for _ in listener.notifies(timeout=0.5):
            notified += 1
    finally:
        await listener.close()
    assert core.announcer is not None
    # Creates that notified in their own commits would make one NOTIFY each (PostgreSQL merges equal
    # notifications only within one transaction); the dispatcher's own announce to other cores (a claim
    # that filled the endpoint's quota) may add one a second.
    assert 1 <= core.announcer.sent <= notified < 30
