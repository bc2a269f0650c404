"""HttpWebhookSender: POSTs on kept-alive connections per endpoint, pinned to the checked address, never
redirected."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from functools import lru_cache

import h11
import httpx

from core_server.webhooks.application.ports import SendResult
from core_server.webhooks.domain.webhook_url import WebhookTarget
from core_server.webhooks.senders.connection_pool import IdleConnections, PooledConnection, PoolKey

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
MAX_BODY_BYTES = 64 * 1024  # an answer's body read to keep its connection; a longer one closes it
BODY_SECONDS = 0.5  # an answer's body must follow its head this fast, or the connection is closed
READ_BYTES = 16 * 1024


class _NotAnswered(Exception):
    """A reused connection was closed or reset before any byte of an answer: the receiver dropped it while
    idle, so the request is sent once more on a fresh connection."""


class HttpWebhookSender:
    """Connections are kept alive per (scheme, host, port, checked address) (connection_pool.py): the
    address is the one the dispatcher resolved and checked for this attempt, so reuse never skips the
    SSRF check, and a TLS session verified for one host never carries another host's request.

    Each POST is written and read with asyncio streams and h11 (httpx's own HTTP/1.1 parser) rather than
    through httpx's client, whose layers were most of the core's CPU per delivery. TLS is httpx's context
    (its CA bundle, verification on) with SNI set to the URL's host. An answer's body is read only to keep
    the connection (at most MAX_BODY_BYTES, within BODY_SECONDS): a receiver answering gigabytes costs one
    closed connection.
    """

    def __init__(self, max_connections: int = 64) -> None:
        self._slots = asyncio.Semaphore(max_connections)
        self._tls = httpx.create_ssl_context(trust_env=False)
        self.connections = IdleConnections()

    async def send(
        self,
        target: WebhookTarget,
        address: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,  # noqa: ASYNC109 - the whole POST's limit, connecting included
    ) -> SendResult:
        path, host = _request_target(target.url)
        request = h11.Request(
            method="POST",
            target=path,
            headers=[
                ("Host", host),
                ("User-Agent", USER_AGENT),
                *headers.items(),
                ("Content-Length", str(len(body))),
            ],
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        key: PoolKey = (target.scheme, target.host, target.port, address)
        async with self._slots:
            conn = self.connections.take(key)
            if conn is not None:
                try:
                    return await self._post(key, conn, request, body, deadline, timeout)
                except _NotAnswered:
                    pass  # dropped while idle: a fresh connection below
            try:
                # Within the attempt's deadline, also after a kept connection turned out dropped.
                async with asyncio.timeout_at(min(deadline, loop.time() + timeout * CONNECT_SHARE)):
                    conn = await self._connect(target, address)
            except (OSError, TimeoutError) as exc:
                # The operator's log keeps the cause (no URL: its query may be the merchant's business).
                cause = "ConnectTimeout" if isinstance(exc, TimeoutError) else "ConnectError"
                logger.info("webhook connection failed: %s", cause)
                return SendResult(None, CONNECTION_FAILED, timed_out=isinstance(exc, TimeoutError))
            try:
                return await self._post(key, conn, request, body, deadline, timeout)
            except _NotAnswered:
                return SendResult(None, NO_VALID_ANSWER)

    async def _connect(self, target: WebhookTarget, address: str) -> PooledConnection:
        reader, writer = await asyncio.open_connection(
            address,
            target.port,
            ssl=self._tls if target.scheme == "https" else None,
            server_hostname=target.host if target.scheme == "https" else None,
            limit=MAX_HEAD_BYTES,
        )
        self.connections.opened += 1
        return PooledConnection(
            reader, writer, h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        )

    async def _post(
        self,
        key: PoolKey,
        conn: PooledConnection,
        request: h11.Request,
        body: bytes,
        deadline: float,
        timeout: float,  # noqa: ASYNC109 - only quoted in the error
    ) -> SendResult:
        """One request on `conn`; the connection is kept when its answer was read to the end."""
        keep = False
        try:
            async with asyncio.timeout_at(deadline):
                status = await _exchange(conn, request, body)
            keep = await _finish_body(
                conn, min(BODY_SECONDS, max(deadline - asyncio.get_running_loop().time(), 0))
            )
            return SendResult(status, None)
        except TimeoutError:
            return SendResult(None, f"no answer within {timeout:.3g} s", timed_out=True)
        except _NotAnswered:
            raise
        except (OSError, EOFError, ValueError, h11.ProtocolError) as exc:
            # Connected, but what came back was no HTTP answer; errno text would still say too much.
            logger.info("webhook answer unusable: %s", type(exc).__name__)
            return SendResult(None, NO_VALID_ANSWER)
        finally:
            if keep:
                self.connections.give_back(key, conn)
            else:
                conn.abort()  # no lingering close, no body drained

    async def close(self) -> None:
        self.connections.close()


@lru_cache(maxsize=4096)
def _request_target(url: str) -> tuple[bytes, str]:
    """The request line's target and the Host header of `url`, as httpx writes them (its URL parser
    normalises the path's percent-encoding and the host's IDNA form); the same for every POST to an
    endpoint, so worked out once per URL."""
    parsed = httpx.URL(url)
    return parsed.raw_path, parsed.netloc.decode("ascii")


async def _exchange(conn: PooledConnection, request: h11.Request, body: bytes) -> int:
    """Writes the request, reads up to the final answer's head; returns its status code."""
    http, reader, writer = conn.http, conn.reader, conn.writer
    answered = False
    try:
        writer.write(http.send(request) + http.send(h11.Data(data=body)) + http.send(h11.EndOfMessage()))
        await writer.drain()
        while True:
            event = http.next_event()
            if event is h11.NEED_DATA:
                chunk = await reader.read(READ_BYTES)
                if not chunk:
                    raise EOFError("closed before an answer")
                answered = True
                http.receive_data(chunk)
            elif isinstance(event, h11.Response):
                return int(event.status_code)
            elif not isinstance(event, h11.InformationalResponse):
                raise ValueError("no HTTP answer")
    except (EOFError, ConnectionError) as exc:
        if conn.reused and not answered:
            raise _NotAnswered from exc
        raise


async def _finish_body(conn: PooledConnection, seconds: float) -> bool:
    """Reads the rest of the answer (at most MAX_BODY_BYTES, within `seconds`); True when the connection
    may carry the next request."""
    http = conn.http
    read = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                event = http.next_event()
                if event is h11.NEED_DATA:
                    chunk = await conn.reader.read(READ_BYTES)
                    if not chunk:
                        return False
                    http.receive_data(chunk)
                elif isinstance(event, h11.Data):
                    read += len(event.data)
                    if read > MAX_BODY_BYTES:
                        return False
                elif isinstance(event, h11.EndOfMessage):
                    return http.our_state is h11.DONE and http.their_state is h11.DONE
                else:
                    return False
    except (TimeoutError, OSError, h11.ProtocolError):
        return False
