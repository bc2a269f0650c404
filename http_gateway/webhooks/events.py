"""Event routes (secret key): list with a type filter, retrieve, resend to the current endpoints."""

from __future__ import annotations

from connect.v1 import webhook_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Kind, parse_query, validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc

LIST_QUERY: dict[str, Kind] = {"type": "str", "limit": "int32", "starting_after": "str"}


async def list_events(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = webhook_service_pb2.ListEventsRequest(
        caller=caller.pb(),
        type=query.get("type", ""),
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).webhooks.ListEvents, message, is_read=True)
    data = (e.object_json for e in reply.response.events)
    return respond(reply, list_body(data, url=request.path, has_more=reply.response.has_more))


async def get_event(request: Request, event_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = webhook_service_pb2.GetEventRequest(caller=caller.pb(), event_id=event_id)
    reply = await rpc(request, core_of(request).webhooks.GetEvent, message, is_read=True)
    return respond(reply, reply.response.event.object_json)


async def resend_event(request: Request, event_id: str) -> HTTPResponse:
    """200 with the deliveries queued (a list; empty when no endpoint receives the event's type)."""
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    validate_body(request, ())
    message = webhook_service_pb2.ResendEventRequest(
        caller=caller.pb(), event_id=event_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).webhooks.ResendEvent, message)
    data = (d.object_json for d in reply.response.deliveries)
    return respond(reply, list_body(data, url=request.path, has_more=False))


def blueprint() -> Blueprint:
    bp = Blueprint("events", url_prefix="/events")
    bp.add_route(list_events, "", methods=["GET"], name="list_events")
    bp.add_route(get_event, "/<event_id>", methods=["GET"], name="get_event")
    bp.add_route(resend_event, "/<event_id>/resend", methods=["POST"], name="resend_event")
    return bp
