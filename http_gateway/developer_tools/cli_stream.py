"""GET /cli/sessions/{id}/stream: a session's events as Server-Sent Events, carried from the core by the
server-streaming StreamCliEvents call.

The gateway keeps no position of its own: the client's Last-Event-ID (header, or `last_event_id` in the
query) goes to the core, which resumes after it, so a client that reconnects through another gateway, or
after this one restarted, loses and repeats nothing. The core's keep-alives become SSE comments (they
also keep Sanic's response time-out from closing a quiet stream). On shutdown every open stream is
ended cleanly (its client reconnects elsewhere) instead of holding the gateway's graceful stop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc
from connect import errors
from connect.v1 import cli_session_service_pb2
from sanic import Request, Sanic
from sanic.response import HTTPResponse

from http_gateway.core_client.grpc_clients import core_metadata
from http_gateway.developer_tools.serializers import sse_event
from http_gateway.edge.errors import ApiError, api_error_from_rpc
from http_gateway.edge.validation import Kind, parse_query
from http_gateway.pipeline.admission import admit_api_key, core_of, settings_of

logger = logging.getLogger(__name__)

STREAM_QUERY: dict[str, Kind] = {"events": "str", "last_event_id": "str"}
MAX_EVENT_ID = 100
RECONNECT_MS = 1000
"""SSE `retry:` — how long a client waits before reconnecting after the stream ends."""


def open_streams(app: Sanic) -> set[Any]:
    """The core calls of this worker's open streams (app.ctx), so shutdown can end them."""
    streams: set[Any] | None = getattr(app.ctx, "cli_streams", None)
    if streams is None:
        streams = app.ctx.cli_streams = set()
    return streams


async def end_open_streams(app: Sanic) -> None:
    """before_server_stop: each stream ends (its client resumes with Last-Event-ID elsewhere)."""
    for call in list(open_streams(app)):
        call.cancel()


def _stream_request(request: Request, session_id: str, caller_pb: Any) -> Any:
    query = parse_query(request, STREAM_QUERY)
    last_event_id = request.headers.get("Last-Event-ID") or query.get("last_event_id", "")
    if len(last_event_id) > MAX_EVENT_ID:
        raise ApiError.invalid("Last-Event-ID", "Last-Event-ID is not an event id.")
    types = [t.strip() for t in str(query.get("events", "")).split(",") if t.strip()]
    return cli_session_service_pb2.StreamCliEventsRequest(
        caller=caller_pb, session_id=session_id, last_event_id=last_event_id, types=types
    )


async def stream_events(request: Request, session_id: str) -> HTTPResponse | None:
    caller = await admit_api_key(request, test_only=True)
    message = _stream_request(request, session_id, caller.pb())
    settings = settings_of(request)
    call = core_of(request).cli_sessions.StreamCliEvents(
        message, metadata=core_metadata(settings, request.ctx.request_id)
    )
    replies = call.__aiter__()
    try:
        # The core answers a keep-alive first once the session is found open; its errors (404, 403,
        # 400) are still ordinary JSON answers, since nothing of the stream was sent yet.
        await asyncio.wait_for(replies.__anext__(), settings.core_timeout)
    except grpc.aio.AioRpcError as err:
        call.cancel()
        raise api_error_from_rpc(err) from None
    except (TimeoutError, StopAsyncIteration):
        call.cancel()
        raise ApiError.of(errors.SERVICE_UNAVAILABLE) from None
    streams = open_streams(request.app)
    streams.add(call)
    try:
        response = await request.respond(
            content_type="text/event-stream; charset=utf-8",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        await response.send(f"retry: {RECONNECT_MS}\n: connected\n\n")
        try:
            async for reply in replies:
                await response.send(sse_event(reply.event) if reply.HasField("event") else ": keep-alive\n\n")
        except grpc.aio.AioRpcError as err:
            # The core went away or stopped: the stream ends, the client resumes after its last event.
            logger.info("cli stream ended by the core", extra={"grpc_code": err.code().name})
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the client hung up (Sanic cancels the handler)
            # Our own call.cancel() at shutdown: end the response properly.
        await response.eof()
    finally:
        streams.discard(call)
        call.cancel()
    return None
