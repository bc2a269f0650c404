"""HttpWebhookSender: one POST per attempt on its own connection, pinned to the checked address, never
redirected."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

import h11
import httpx

from core_server.webhooks.application.ports import SendResult
from core_server.webhooks.domain.webhook_url import WebhookTarget

logger = logging.getLogger(__name__)

USER_AGENT = "PaymentConnect-Webhooks/1.0"
# What the delivery log says when no connection came about, whatever the reason: refused, reset, unreachable,
# timed out or a failed TLS handshake read alike, so delivery records cannot be used to map which ports of
# a host are open, closed or filtered.
CONNECTION_FAILED = "connection failed"
NO_VALID_ANSWER = "no valid HTTP answer"
# Connecting may use this share of the attempt: a silently dropped SYN then ends as CONNECTION_FAILED here
# before the dispatcher's whole-attempt deadline could report it as "no answer", like a hanging receiver.
CONNECT_SHARE = 0.8
MAX_HEAD_BYTES = 64 * 1024  # an answer's status line and headers; more is no valid answer
READ_BYTES = 16 * 1024


class HttpWebhookSender:
    """The response body is never read: a receiver answering gigabytes costs us nothing.

    Connections are not kept alive: a pooled connection is keyed by IP, and a TLS session proven
    for one host must not carry a request for another host on the same address.

    One POST is one connection to the pinned address, written and read with asyncio streams and h11
    (httpx's own HTTP/1.1 parser) rather than through httpx's client: with no connection to reuse, the
    client's pool and its layers were all cost — most of the core's CPU per delivery under a steady
    event rate. TLS is httpx's context (its CA bundle, verification on) with SNI set to the URL's host.
    """

    def __init__(self, max_connections: int = 64) -> None:
        self._slots = asyncio.Semaphore(max_connections)
        self._tls = httpx.create_ssl_context(trust_env=False)

    async def send(
        self,
        target: WebhookTarget,
        address: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,  # noqa: ASYNC109 - the whole POST's limit, connecting included
    ) -> SendResult:
        url = httpx.URL(target.url)
        request = h11.Request(
            method="POST",
            target=url.raw_path,
            headers=[
                ("Host", url.netloc.decode("ascii")),
                ("User-Agent", USER_AGENT),
                *headers.items(),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with self._slots:
            try:
                async with asyncio.timeout_at(loop.time() + timeout * CONNECT_SHARE):
                    reader, writer = await asyncio.open_connection(
                        address,
                        target.port,
                        ssl=self._tls if target.scheme == "https" else None,
                        server_hostname=target.host if target.scheme == "https" else None,
                        limit=MAX_HEAD_BYTES,
                    )
            except (OSError, TimeoutError) as exc:
                # The operator's log keeps the cause (no URL: its query may be the merchant's business).
                cause = "ConnectTimeout" if isinstance(exc, TimeoutError) else "ConnectError"
                logger.info("webhook connection failed: %s", cause)
                return SendResult(None, CONNECTION_FAILED, timed_out=isinstance(exc, TimeoutError))
            try:
                async with asyncio.timeout_at(deadline):
                    return SendResult(await _exchange(reader, writer, request, body), None)
            except TimeoutError:
                return SendResult(None, f"no answer within {timeout:.3g} s", timed_out=True)
            except (OSError, EOFError, ValueError, h11.ProtocolError) as exc:
                # Connected, but what came back was no HTTP answer; errno text would still say too much.
                logger.info("webhook answer unusable: %s", type(exc).__name__)
                return SendResult(None, NO_VALID_ANSWER)
            finally:
                writer.transport.abort()  # nothing more is read: no lingering close, no body drained

    async def close(self) -> None:
        pass


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
) -> int:
    """Writes the request, reads up to the final answer's head; returns its status code."""
    conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
    writer.write(conn.send(request) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
    await writer.drain()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            chunk = await reader.read(READ_BYTES)
            if not chunk:
                raise EOFError("closed before an answer")
            conn.receive_data(chunk)
        elif isinstance(event, h11.Response):
            return int(event.status_code)
        elif not isinstance(event, h11.InformationalResponse):
            raise ValueError("no HTTP answer")
