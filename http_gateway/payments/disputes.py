"""Sandbox test helpers (secret TEST key): open and close disputes on TEST charges."""

from __future__ import annotations

from connect.v1 import charge_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.validation import Field, validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc

CLOSE_FIELDS = (Field("outcome", "str", required=True),)


async def dispute_charge(request: Request, charge_id: str) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    validate_body(request, ())
    message = charge_service_pb2.DisputeChargeRequest(
        caller=caller.pb(), charge_id=charge_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).charges.DisputeCharge, message, pin=charge_id)
    return respond(reply, reply.response.dispute.object_json, status=201)


async def close_dispute(request: Request, dispute_id: str) -> HTTPResponse:
    caller = await admit_api_key(request, test_only=True)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, CLOSE_FIELDS)
    message = charge_service_pb2.CloseDisputeRequest(
        caller=caller.pb(), dispute_id=dispute_id, outcome=body["outcome"], idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).charges.CloseDispute, message)
    return respond(reply, reply.response.dispute.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("test_helpers", url_prefix="/test_helpers")
    bp.add_route(dispute_charge, "/charges/<charge_id>/dispute", methods=["POST"], name="dispute_charge")
    bp.add_route(close_dispute, "/disputes/<dispute_id>/close", methods=["POST"], name="close_dispute")
    return bp
