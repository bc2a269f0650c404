"""The sandbox clock (secret TEST key, DESIGN §9): `GET /test_helpers/clock`, `POST …/clock/advance`."""

from __future__ import annotations

from connect.v1 import test_clock_pb2, test_clock_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.serialization import JSON, gateway_json
from http_gateway.edge.validation import Field, validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc

ADVANCE_FIELDS = (Field("to", "int", required=True),)


def test_clock_json(clock: test_clock_pb2.TestClock) -> JSON:
    return {"object": "test_clock", "now": clock.now}


async def get_clock(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    message = test_clock_service_pb2.GetTestClockRequest(caller=caller.pb())
    reply = await rpc(request, core_of(request).test_clock.GetTestClock, message)
    return respond(reply, gateway_json(test_clock_json(reply.response.clock)))


async def advance_clock(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, ADVANCE_FIELDS)
    message = test_clock_service_pb2.AdvanceTestClockRequest(
        caller=caller.pb(), to=body["to"], idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).test_clock.AdvanceTestClock, message)
    return respond(reply, gateway_json(test_clock_json(reply.response.clock)))


def blueprint() -> Blueprint:
    bp = Blueprint("test_clock", url_prefix="/test_helpers/clock")
    bp.add_route(get_clock, "", methods=["GET"], name="get_test_clock")
    bp.add_route(advance_clock, "/advance", methods=["POST"], name="advance_test_clock")
    return bp
