"""`payconnect listen` session routes (TEST secret key, DESIGN §10.6): open, close, answers reported."""

from __future__ import annotations

from connect.v1 import cli_session_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.developer_tools.cli_stream import stream_events
from http_gateway.developer_tools.serializers import cli_response_json, cli_session_json
from http_gateway.edge.pagination import PAGE_QUERY, page_fields
from http_gateway.edge.serialization import gateway_json, list_body
from http_gateway.edge.validation import Field, parse_query, validate_body
from http_gateway.pipeline.admission import (
    admit_api_key,
    check_idempotency,
    core_of,
    respond,
    rpc,
    settings_of,
)

CREATE_FIELDS = (Field("device_name", "str", required=True),)
# `status`: the HTTP status the local endpoint answered, or null with `error` when none arrived.
RESPONSE_FIELDS = (
    Field("event_id", "str", required=True),
    Field("status", "int32"),
    Field("error", "str"),
    Field("latency_ms", "int32"),
)
LIST_QUERY = PAGE_QUERY


async def create_session(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, CREATE_FIELDS)
    message = cli_session_service_pb2.CreateCliSessionRequest(
        caller=caller.pb(), device_name=body["device_name"], idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).cli_sessions.CreateCliSession, message)
    session = cli_session_json(reply.response.cli_session, settings_of(request).public_base_url)
    return respond(reply, gateway_json(session), status=201)


async def close_session(request: Request, session_id: str) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    message = cli_session_service_pb2.CloseCliSessionRequest(
        caller=caller.pb(), session_id=session_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).cli_sessions.CloseCliSession, message)
    session = cli_session_json(reply.response.cli_session, settings_of(request).public_base_url)
    return respond(reply, gateway_json({**session, "closed": True}))


async def record_response(request: Request, session_id: str) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, RESPONSE_FIELDS)
    message = cli_session_service_pb2.RecordCliResponseRequest(
        caller=caller.pb(), session_id=session_id, event_id=body["event_id"], idempotency=idempotency
    )
    if body.get("status") is not None:
        message.status_code = body["status"]
    if body.get("error") is not None:
        message.error = body["error"]
    if body.get("latency_ms") is not None:
        message.latency_ms = body["latency_ms"]
    reply = await rpc(request, core_of(request).cli_sessions.RecordCliResponse, message)
    return respond(reply, gateway_json(cli_response_json(reply.response.cli_response)), status=201)


async def list_responses(request: Request, session_id: str) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    query = parse_query(request, LIST_QUERY)
    message = cli_session_service_pb2.ListCliResponsesRequest(
        caller=caller.pb(),
        session_id=session_id,
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).cli_sessions.ListCliResponses, message, is_read=True)
    data = (gateway_json(cli_response_json(r)) for r in reply.response.cli_responses)
    return respond(reply, list_body(data, url=request.path, has_more=reply.response.has_more))


def blueprint() -> Blueprint:
    bp = Blueprint("cli_sessions", url_prefix="/cli/sessions")
    bp.add_route(create_session, "", methods=["POST"], name="create_cli_session")
    bp.add_route(close_session, "/<session_id>", methods=["DELETE"], name="close_cli_session")
    bp.add_route(stream_events, "/<session_id>/stream", methods=["GET"], name="stream_cli_events")
    bp.add_route(record_response, "/<session_id>/responses", methods=["POST"], name="record_cli_response")
    bp.add_route(list_responses, "/<session_id>/responses", methods=["GET"], name="list_cli_responses")
    return bp
