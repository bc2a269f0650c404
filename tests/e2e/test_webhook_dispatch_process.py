"""The core's webhook dispatcher process (WEBHOOK_DISPATCH=process, the default): it dies with its core even
on SIGKILL, is started again when it dies alone (and what it had in flight goes again at once), its
delivery outcomes are served on the core's metrics port, and a graceful stop lets its sends in flight
finish and be recorded."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from tests.e2e.api_client import Merchant, create_charge, create_endpoint, sign_up
from tests.support.private_services import wait_until
from tests.support.processes import (
    RunningProcess,
    children_running,
    free_port,
    pid_alive,
    start_core,
    start_gateway,
)
from tests.support.services import create_test_database, drop_test_database
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

DISPATCHER = "core_server.dispatch_process"
OUTCOMES = "core_webhook_delivery_attempts_total"


@dataclass
class Stack:
    env: dict[str, str]
    core: RunningProcess
    gateway: RunningProcess
    metrics_url: str
    merchant: Merchant
    receiver: WebhookReceiver

    def dispatcher_pid(self, other_than: int | None = None, timeout: float = 15.0) -> int:
        """The core's dispatcher process (polled: the core starts it, or starts it again, in a moment)."""
        found: list[int] = []

        def running() -> bool:
            found[:] = [p for p in children_running(self.core.pid, DISPATCHER) if p != other_than]
            return bool(found)

        wait_until(running, timeout, what="a webhook dispatcher process of the core")
        assert len(found) == 1, f"one dispatcher process per core, found {found}"
        return found[0]

    def charge(self) -> str:
        with httpx.Client(base_url=self.gateway.base_url, timeout=15.0) as client:
            return str(create_charge(client, self.merchant)["id"])

    def delivered(self, status: int = 200) -> set[str]:
        """Charges whose charge.created the receiver answered with `status`."""
        return {
            d.event["data"]["object"]["id"] for d in self.receiver.received("/hook") if d.answered == status
        }

    def outcomes(self) -> dict[str, float]:
        counted = {"succeeded": 0.0, "failed": 0.0}
        for line in httpx.get(self.metrics_url, timeout=2.0).text.splitlines():
            for outcome in counted:
                if line.startswith(f'{OUTCOMES}{{outcome="{outcome}"}} '):
                    counted[outcome] = float(line.split()[1])
        return counted


@pytest.fixture
def own_env(stack_env: dict[str, str], services: dict[str, str]) -> Iterator[dict[str, str]]:
    """A database no other core of the session uses: only this test's core delivers its events."""
    dsn = create_test_database(services["DATABASE_URL"])
    try:
        yield {**stack_env, "DATABASE_URL": dsn}
    finally:
        drop_test_database(services["DATABASE_URL"], dsn)


@pytest.fixture
def stack(own_env: dict[str, str]) -> Iterator[Stack]:
    metrics = f"127.0.0.1:{free_port()}"
    with start_receiver() as receiver:
        core = start_core({**own_env, "CORE_METRICS_ADDR": metrics})
        gateway: RunningProcess | None = None
        try:
            gateway = start_gateway(own_env, [core.address])
            with httpx.Client(base_url=gateway.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
                create_endpoint(client, merchant, receiver.url("/hook"))
            yield Stack(own_env, core, gateway, f"http://{metrics}/metrics", merchant, receiver)
        finally:
            if gateway is not None:
                gateway.stop()
            core.stop()


def test_the_dispatcher_process_dies_with_its_core_even_on_sigkill(stack: Stack) -> None:
    dispatcher = stack.dispatcher_pid()
    stack.core.kill()  # no handler runs: the kernel's parent-death signal is what ends the child
    wait_until(lambda: not pid_alive(dispatcher), 5.0, what="the dispatcher's death with its core")


def test_a_dispatcher_that_dies_alone_is_started_again_and_what_it_had_in_flight_goes_at_once(
    stack: Stack,
) -> None:
    stack.receiver.behave("/hook", mode="hang")
    cut_off = stack.charge()
    stack.receiver.wait_for_sync(1, "/hook")  # in flight: claimed for 60 s (WEBHOOK_LEASE_SECONDS)
    first = stack.dispatcher_pid()
    os.kill(first, signal.SIGKILL)
    stack.receiver.behave("/hook", status=200)
    second = stack.dispatcher_pid(other_than=first)
    assert stack.core.is_running()
    # Long before the 60 s lease: the core handed the dead child's claims back before starting another.
    later = stack.charge()
    wait_until(lambda: {cut_off, later} <= stack.delivered(), 15.0, what="both deliveries")
    wait_until(lambda: stack.outcomes()["succeeded"] >= 2, 5.0, what="the new child's outcomes on /metrics")
    assert stack.dispatcher_pid() == second


def test_outcomes_counted_in_the_dispatcher_process_are_served_on_the_core_metrics_port(
    stack: Stack,
) -> None:
    stack.dispatcher_pid()
    assert stack.outcomes() == {"succeeded": 0.0, "failed": 0.0}
    stack.receiver.behave("/hook", status=500)
    refused = stack.charge()
    wait_until(lambda: refused in stack.delivered(500), 10.0, what="the refused delivery")
    stack.receiver.behave("/hook", status=200)
    accepted = stack.charge()
    wait_until(lambda: accepted in stack.delivered(200), 10.0, what="the accepted delivery")
    wait_until(
        lambda: stack.outcomes() == {"succeeded": 1.0, "failed": 1.0}, 5.0, what="both outcomes on /metrics"
    )


def test_a_graceful_stop_lets_the_dispatcher_process_finish_and_record_its_sends_in_flight(
    stack: Stack,
) -> None:
    dispatcher = stack.dispatcher_pid()
    stack.receiver.behave("/hook", delay=1.5)  # under the dispatcher's 3 s grace
    charge = stack.charge()
    stack.receiver.wait_for_sync(1, "/hook")
    began = time.monotonic()
    assert stack.core.stop(signal.SIGTERM, timeout=20.0) == 0
    assert time.monotonic() - began < 15.0
    assert not pid_alive(dispatcher)
    assert charge in stack.delivered(200)
    with psycopg.connect(stack.env["DATABASE_URL"]) as conn:
        rows = conn.execute(
            """SELECT d.status, d.claimed_by, a.status_code FROM webhook_deliveries d
                 JOIN events e ON e.id = d.event_id
                 LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
                WHERE e.object_id = %s""",
            (charge,),
        ).fetchall()
    assert rows == [("succeeded", None, 200)], "the answer was recorded before the process ended"
