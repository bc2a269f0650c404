"""Without WEBHOOK_ALLOW_PRIVATE_TARGETS a TEST endpoint reaches public addresses only, at registration and
at every delivery; a failed connection is recorded as "connection failed", whatever the cause."""

from __future__ import annotations

import dataclasses
import logging
import socket
from collections.abc import AsyncIterator, Iterator

import pytest

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.webhooks.domain.webhook_url import parse_webhook_url
from core_server.webhooks.senders.webhook_sender import HttpWebhookSender
from tests.integration.core.conftest import make_core
from tests.integration.core.factories import new_charge, new_owner
from tests.webhook_receivers import WebhookReceiver, refused_url, start_receiver

pytestmark = pytest.mark.integration

PUBLIC = "93.184.215.14"


class FakeResolver:
    """DNS answers chosen by the test: the attacker controls their zone, so we do too."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    async def resolve(self, host: str, port: int) -> list[str]:
        return self.answers.get(host, [])


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


@pytest.fixture
async def public_only_core(
    isolated_settings: Settings, clock: SettableClock, isolated_pool: object
) -> AsyncIterator[Core]:
    """A core as production runs it: the suite's settings allow private targets, this one does not."""
    settings = dataclasses.replace(isolated_settings, webhook_allow_private_targets=False)
    core = await make_core(settings, clock)
    try:
        yield core
    finally:
        await core.close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:4242/h", "http://10.1.2.3/h", "http://[::1]:4242/h"])
async def test_a_test_endpoint_on_a_private_literal_is_refused_on_url(
    public_only_core: Core, url: str
) -> None:
    owner = await new_owner(public_only_core)
    with pytest.raises(ParameterInvalid) as info:
        await public_only_core.webhooks.create(owner, url, ["*"], None)
    assert info.value.param == "url"


async def test_a_host_resolving_to_loopback_is_refused_at_registration(
    public_only_core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = public_only_core
    owner = await new_owner(core)
    monkeypatch.setattr(core.webhooks, "_resolver", FakeResolver({"mine.example": ["127.0.0.1"]}))
    with pytest.raises(ParameterInvalid) as info:
        await core.webhooks.create(owner, "http://mine.example/hook", ["*"], None)
    assert info.value.param == "url"


async def test_a_host_that_later_resolves_to_a_private_address_gets_nothing(
    public_only_core: Core, receiver: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = public_only_core
    owner = await new_owner(core)
    monkeypatch.setattr(core.webhooks, "_resolver", FakeResolver({"shop.example": [PUBLIC]}))
    endpoint = await core.webhooks.create(owner, f"http://shop.example:{receiver.port}/later", ["*"], None)
    # At delivery time the name points at this machine, where the receiver listens.
    monkeypatch.setattr(core.dispatcher, "_resolver", FakeResolver({"shop.example": ["127.0.0.1"]}))
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 1

    assert receiver.received("/later") == []
    page = await core.webhooks.deliveries(owner, endpoint.id, limit=10, starting_after=None)
    (delivery,) = page.items
    (attempt,) = delivery.attempts
    assert attempt.status_code is None and not attempt.succeeded
    assert attempt.error == "endpoint host must be a public address"


async def test_the_dispatcher_delivers_to_loopback_only_when_private_targets_are_allowed(
    isolated_core: Core, receiver: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control of the test above: the same endpoint arrives when the operator allows private targets."""
    core = isolated_core
    assert core.settings.webhook_allow_private_targets
    owner = await new_owner(core)
    monkeypatch.setattr(core.webhooks, "_resolver", FakeResolver({"shop.example": [PUBLIC]}))
    await core.webhooks.create(owner, f"http://shop.example:{receiver.port}/later", ["*"], None)
    monkeypatch.setattr(core.dispatcher, "_resolver", FakeResolver({"shop.example": ["127.0.0.1"]}))
    await new_charge(core, owner)
    assert await core.dispatcher.drain() == 1
    assert len(receiver.received("/later")) == 1


def _full_backlog_listener() -> tuple[socket.socket, list[socket.socket], int]:
    """A port whose accept queue is full and never drained: further connects hang, as on a firewall that
    drops packets."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = int(listener.getsockname()[1])
    fillers = []
    for _ in range(3):
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    return listener, fillers, port


async def test_refused_and_timed_out_connections_read_alike_with_no_port_detail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="core_server.webhooks.senders.webhook_sender")
    sender = HttpWebhookSender()
    listener, fillers, hanging_port = _full_backlog_listener()
    try:
        refused = parse_webhook_url(refused_url("/x"), Environment.TEST, allow_private=True)
        hanging = parse_webhook_url(
            f"http://127.0.0.1:{hanging_port}/x", Environment.TEST, allow_private=True
        )
        results = [
            await sender.send(target, "127.0.0.1", b"{}", {}, timeout=0.5) for target in (refused, hanging)
        ]
    finally:
        await sender.close()
        for sock in (*fillers, listener):
            sock.close()
    assert [(r.status_code, r.error) for r in results] == [(None, "connection failed")] * 2
    for result in results:
        assert str(refused.port) not in str(result.error) and str(hanging_port) not in str(result.error)
    # The operator's log keeps the cause the delivery record leaves out.
    logged = [r.getMessage() for r in caplog.records]
    assert "webhook connection failed: ConnectError" in logged
    assert "webhook connection failed: ConnectTimeout" in logged


async def test_refused_and_hanging_connections_are_recorded_alike_as_connection_failed(
    isolated_core: Core,
) -> None:
    """Within the dispatcher's whole-attempt deadline too (1 s here): a dropped SYN must not end as the
    "no answer" of a receiver that accepted the connection and then hung."""
    core = isolated_core
    owner = await new_owner(core)
    listener, fillers, hanging_port = _full_backlog_listener()
    try:
        endpoints = [
            await core.webhooks.create(owner, url, ["*"], None)
            for url in (refused_url("/gone"), f"http://127.0.0.1:{hanging_port}/hang")
        ]
        await new_charge(core, owner)
        assert await core.dispatcher.drain() == 2
    finally:
        for sock in (*fillers, listener):
            sock.close()
    for endpoint in endpoints:
        page = await core.webhooks.deliveries(owner, endpoint.id, limit=10, starting_after=None)
        ((attempt,),) = [d.attempts for d in page.items]
        assert (attempt.status_code, attempt.error) == (None, "connection failed")
