"""POST /test_helpers/reset (TEST secret key, DESIGN §10.5): start the sandbox over."""

from __future__ import annotations

from connect.v1 import test_reset_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.developer_tools.serializers import test_reset_json
from http_gateway.edge.serialization import gateway_json
from http_gateway.edge.validation import validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc


async def reset_test_data(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    validate_body(request, ())
    message = test_reset_service_pb2.ResetTestDataRequest(caller=caller.pb(), idempotency=idempotency)
    reply = await rpc(request, core_of(request).test_reset.ResetTestData, message)
    return respond(reply, gateway_json(test_reset_json(reply.response)))


def blueprint() -> Blueprint:
    bp = Blueprint("test_reset", url_prefix="/test_helpers/reset")
    bp.add_route(reset_test_data, "", methods=["POST"], name="reset_test_data")
    return bp
