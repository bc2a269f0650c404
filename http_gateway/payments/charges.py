"""Charge routes (secret key): create, retrieve, list, capture, refund, void."""

from __future__ import annotations

from typing import Any

from connect.v1 import charge_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.pagination import list_limit
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, Kind, parse_query, validate_body
from http_gateway.payments.serializers import CHARGE_STATUS_VALUES
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key

CREATE_FIELDS = (
    Field("amount", "int", required=True),
    Field("currency", "str", required=True),
    Field("description", "str"),
    Field("metadata", "metadata"),
    # Spec: the detailed style writes returnUrl/cancelUrl/customerEmail, the overview snake_case; both work.
    Field("return_url", "str", required=True, aliases=("returnUrl",)),
    Field("cancel_url", "str", aliases=("cancelUrl",)),
    Field("customer_email", "str", aliases=("customerEmail",)),
)
CAPTURE_FIELDS = (Field("amount", "int"),)
REFUND_FIELDS = (Field("amount", "int"), Field("reason", "str"))
LIST_QUERY: dict[str, Kind] = {
    "status": "str",
    "limit": "int32",
    "created_after": "int",
    "created_before": "int",
    "starting_after": "str",
}


async def create_charge(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, CREATE_FIELDS)
    )
    message = charge_service_pb2.CreateChargeRequest(
        caller=caller.pb(),
        amount=body["amount"],
        currency=body["currency"],
        metadata=body.get("metadata", {}),
        return_url=body["return_url"],
        idempotency=idempotency,
    )
    for name in ("description", "cancel_url", "customer_email"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).charges.CreateCharge, message)
    return respond(reply, reply.response.charge.object_json, status=201)


async def get_charge(request: Request, charge_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = charge_service_pb2.GetChargeRequest(caller=caller.pb(), charge_id=charge_id)
    reply = await rpc(request, core_of(request).charges.GetCharge, message, is_read=True, pin=charge_id)
    return respond(reply, reply.response.charge.object_json)


async def list_charges(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = charge_service_pb2.ListChargesRequest(
        caller=caller.pb(), starting_after=query.get("starting_after", "")
    )
    if "status" in query:
        if query["status"] not in CHARGE_STATUS_VALUES:
            names = ", ".join(CHARGE_STATUS_VALUES)
            raise ApiError.invalid("status", f"Invalid status: must be one of {names}.")
        message.status = CHARGE_STATUS_VALUES[query["status"]]  # type: ignore[assignment]
    if "limit" in query:
        message.limit = list_limit(query)
    for name in ("created_after", "created_before"):
        if name in query:
            setattr(message, name, query[name])
    reply = await rpc(request, core_of(request).charges.ListCharges, message, is_read=True)
    page: Any = reply.response
    body = list_body(
        (c.object_json for c in page.charges),
        url=request.path,
        has_more=page.has_more,
        total_count=page.total_count,
    )
    return respond(reply, body)


async def capture_charge(request: Request, charge_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, CAPTURE_FIELDS)
    )
    message = charge_service_pb2.CaptureChargeRequest(
        caller=caller.pb(), charge_id=charge_id, idempotency=idempotency
    )
    if "amount" in body:
        message.amount = body["amount"]
    reply = await rpc(request, core_of(request).charges.CaptureCharge, message, pin=charge_id)
    return respond(reply, reply.response.object_json)


async def refund_charge(request: Request, charge_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, REFUND_FIELDS)
    )
    message = charge_service_pb2.RefundChargeRequest(
        caller=caller.pb(), charge_id=charge_id, idempotency=idempotency
    )
    for name in ("amount", "reason"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).charges.RefundCharge, message, pin=charge_id)
    return respond(reply, reply.response.refund.object_json, status=201)


async def void_charge(request: Request, charge_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, _ = await validated_with_key(request, caller.scope, lambda: validate_body(request, ()))
    message = charge_service_pb2.VoidChargeRequest(
        caller=caller.pb(), charge_id=charge_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).charges.VoidCharge, message, pin=charge_id)
    return respond(reply, reply.response.charge.object_json)


def blueprint() -> Blueprint:
    """A fresh blueprint per mount, so each address style registers its own copy."""
    bp = Blueprint("charges", url_prefix="/charges")
    bp.add_route(create_charge, "", methods=["POST"], name="create_charge")
    bp.add_route(list_charges, "", methods=["GET"], name="list_charges")
    bp.add_route(get_charge, "/<charge_id>", methods=["GET"], name="get_charge")
    bp.add_route(capture_charge, "/<charge_id>/capture", methods=["POST"], name="capture_charge")
    bp.add_route(refund_charge, "/<charge_id>/refunds", methods=["POST"], name="refund_charge")
    bp.add_route(void_charge, "/<charge_id>/void", methods=["POST"], name="void_charge")
    return bp
