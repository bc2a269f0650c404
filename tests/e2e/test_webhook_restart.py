"""A core killed with SIGKILL in the middle of a webhook backlog loses nothing: a new core delivers it all."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import create_charge, create_endpoint, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.services import create_test_database, drop_test_database
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

EVENTS = 12
# The first core must die before its hanging attempts time out (they would be recorded as failures and
# retried a minute later); the lease outlasts an attempt (the core refuses anything else) and is short
# enough that the second core takes the abandoned attempts over within seconds.
RESTART_ENV = {
    "WEBHOOK_TIMEOUT_SECONDS": "4",
    "WEBHOOK_LEASE_SECONDS": "5",
    "WEBHOOK_CONCURRENCY": "4",
    "WEBHOOK_ENDPOINT_CONCURRENCY": "4",
    "WEBHOOK_MERCHANT_CONCURRENCY": "4",  # one merchant: all four slots in flight when the core dies
    "WEBHOOK_RESERVED_SLOTS": "0",  # no slot kept back for other merchants: there are none here
}


@pytest.fixture
def own_env(stack_env: dict[str, str], services: dict[str, str]) -> Iterator[dict[str, str]]:
    """A database no other core of the session uses: only the cores of this test may deliver."""
    dsn = create_test_database(services["DATABASE_URL"])
    try:
        yield {**stack_env, **RESTART_ENV, "DATABASE_URL": dsn}
    finally:
        drop_test_database(services["DATABASE_URL"], dsn)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def test_sigkill_mid_backlog_then_a_new_core_delivers_every_pending_event(
    own_env: dict[str, str], receiver: WebhookReceiver
) -> None:
    receiver.behave("/hook", mode="hang")  # the receiver is down: it accepts and never answers
    first = start_core(own_env)
    gateway: RunningProcess | None = None
    second: RunningProcess | None = None
    try:
        gateway = start_gateway(own_env, [first.address])
        with httpx.Client(base_url=gateway.base_url, timeout=15.0) as client:
            merchant = sign_up(client)
            create_endpoint(client, merchant, receiver.url("/hook"))
            charge_ids = {create_charge(client, merchant)["id"] for _ in range(EVENTS)}
        # Four attempts are in flight (leased, unanswered), eight were never attempted.
        receiver.wait_for_sync(4, "/hook")
        first.kill()
        gateway.stop()

        receiver.behave("/hook", status=200)  # the receiver comes back
        second = start_core(own_env)
        # The eight never attempted go at once; the four abandoned ones once their lease lapsed.
        deadline = time.monotonic() + 20.0
        while time.monotonic() < deadline:
            answered = [d for d in receiver.received("/hook") if d.answered == 200]
            if len(answered) >= EVENTS:
                break
            time.sleep(0.05)
        delivered = {d.event["data"]["object"]["id"] for d in answered}
        assert delivered == charge_ids, f"missing {charge_ids - delivered}"
        time.sleep(0.2)
        assert len([d for d in receiver.received("/hook") if d.answered == 200]) == EVENTS  # each once
    finally:
        for process in (gateway, first, second):
            if process is not None:
                process.stop()
