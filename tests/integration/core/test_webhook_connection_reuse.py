"""The webhook sender's kept-alive connections against real receivers: POSTs to one endpoint reuse one
TCP connection, a connection goes only to the address checked for the attempt (a host that resolves
elsewhere gets a new one, there), and a connection the receiver dropped while idle is replaced without
failing the attempt."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from core_server.bootstrap import Core
from core_server.kernel.domain.environment import Environment
from core_server.webhooks.domain.webhook_url import parse_webhook_url
from core_server.webhooks.senders.webhook_sender import HttpWebhookSender
from tests.integration.core.factories import new_charge, new_owner
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.integration


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


@pytest.fixture
async def sender() -> AsyncIterator[HttpWebhookSender]:
    sending = HttpWebhookSender()
    try:
        yield sending
    finally:
        await sending.close()


def target_of(url: str):  # noqa: ANN201 - a WebhookTarget
    return parse_webhook_url(url, Environment.TEST, allow_private=True)


async def test_posts_to_one_endpoint_reuse_one_connection(
    receiver: WebhookReceiver, sender: HttpWebhookSender
) -> None:
    target = target_of(receiver.url("/reused"))
    results = [await sender.send(target, "127.0.0.1", b"{}", {}, timeout=5) for _ in range(6)]
    assert [r.status_code for r in results] == [200] * 6
    assert len(receiver.received("/reused")) == 6
    assert receiver.connections == 1
    assert (sender.connections.opened, sender.connections.reused) == (1, 5)


async def test_a_connection_goes_only_to_the_address_checked_for_its_attempt(
    sender: HttpWebhookSender,
) -> None:
    first = start_receiver()
    try:
        # The same host name and port on a second loopback address: as if its DNS answer changed.
        second = start_receiver(port=first.port, host="127.0.0.2")
    except OSError:
        first.close()
        pytest.skip("127.0.0.2 is not usable here")
    try:
        target = target_of(f"http://hooks.example:{first.port}/pinned")
        for address in ("127.0.0.1", "127.0.0.2", "127.0.0.1", "127.0.0.2"):
            assert (await sender.send(target, address, b"{}", {}, timeout=5)).status_code == 200
        # Each address got its own requests on its own one connection; the Host header stays the URL's.
        assert (len(first.received()), len(second.received())) == (2, 2)
        assert (first.connections, second.connections) == (1, 1)
        assert {d.headers["host"] for d in first.received() + second.received()} == {
            f"hooks.example:{first.port}"
        }
    finally:
        first.close()
        second.close()


async def test_a_connection_dropped_while_idle_is_replaced_and_the_post_still_answered(
    sender: HttpWebhookSender,
) -> None:
    connections = 0

    async def answer_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answers one request (keep-alive, by HTTP/1.1 default), then drops the connection."""
        nonlocal connections
        connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()

    server = await asyncio.start_server(answer_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        target = target_of(f"http://127.0.0.1:{port}/dropping")
        first = await sender.send(target, "127.0.0.1", b"{}", {}, timeout=5)
        await asyncio.sleep(0.2)  # the receiver has closed its side meanwhile
        second = await sender.send(target, "127.0.0.1", b"{}", {}, timeout=5)
    finally:
        server.close()
    assert (first.status_code, second.status_code) == (204, 204)
    assert connections == 2


async def test_a_huge_answer_closes_its_connection_instead_of_being_read(
    receiver: WebhookReceiver, sender: HttpWebhookSender
) -> None:
    receiver.behave("/huge", mode="huge")
    target = target_of(receiver.url("/huge"))
    for _ in range(2):
        assert (await sender.send(target, "127.0.0.1", b"{}", {}, timeout=5)).status_code == 200
    assert receiver.connections == 2  # not kept: its body was never read to the end


async def test_the_dispatcher_delivers_a_burst_to_one_endpoint_over_few_connections(
    isolated_core: Core, receiver: WebhookReceiver
) -> None:
    core = isolated_core
    owner = await new_owner(core)
    await core.webhooks.create(owner, receiver.url("/burst"), ["charge.created"], None)
    for _ in range(40):
        await new_charge(core, owner)
    assert await core.dispatcher.drain() == 40
    assert len(receiver.received("/burst")) == 40
    # At most one per attempt in flight to the endpoint (WEBHOOK_ENDPOINT_CONCURRENCY), not one per POST.
    assert receiver.connections <= core.settings.webhook_endpoint_concurrency
    # The attempts finishing together were recorded together.
    assert core.dispatcher.record_statements < 40
