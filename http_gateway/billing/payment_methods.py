"""Payment-method vault routes (secret key): attach, list and detach a customer's methods."""

from __future__ import annotations

from typing import Any

from connect.v1 import customer_pb2, customer_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.edge.pagination import PAGE_QUERY, page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, parse_query, validate_body, validate_fields
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key

ATTACH_FIELDS = (
    Field("type", "str", required=True),
    Field("card", "object"),
    Field("paypal", "object"),
    Field("set_default", "bool"),
)
CARD_FIELDS = (
    Field("number", "str", required=True),
    Field("exp_month", "int32", required=True),
    Field("exp_year", "int32", required=True),
    Field("cvc", "str", required=True),
)
PAYPAL_FIELDS = (Field("email", "str", required=True),)
LIST_QUERY = PAGE_QUERY


def attach_body(request: Request) -> dict[str, Any]:
    """The body with the nested card or paypal object checked field by field (`card.number`, …)."""
    body = validate_body(request, ATTACH_FIELDS)
    if "card" in body:
        body["card"] = customer_pb2.VaultCardInput(
            **validate_fields(body["card"], CARD_FIELDS, prefix="card.")
        )
    if "paypal" in body:
        body["paypal"] = validate_fields(body["paypal"], PAYPAL_FIELDS, prefix="paypal.")
    return body


async def attach_payment_method(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(request, caller.scope, lambda: attach_body(request))
    message = customer_service_pb2.AttachPaymentMethodRequest(
        caller=caller.pb(),
        customer_id=customer_id,
        type=body["type"],
        set_default=body.get("set_default", False),
        idempotency=idempotency,
    )
    if "card" in body:
        message.card.CopyFrom(body["card"])
    if "paypal" in body:
        message.paypal_email = body["paypal"]["email"]
    reply = await rpc(request, core_of(request).customers.AttachPaymentMethod, message)
    return respond(reply, reply.response.payment_method.object_json, status=201)


async def list_payment_methods(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = customer_service_pb2.ListPaymentMethodsRequest(
        caller=caller.pb(), customer_id=customer_id, **page_fields(query)
    )
    reply = await rpc(request, core_of(request).customers.ListPaymentMethods, message, is_read=True)
    data = (m.object_json for m in reply.response.payment_methods)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def detach_payment_method(request: Request, customer_id: str, payment_method_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, _ = await validated_with_key(request, caller.scope, lambda: parse_query(request, {}))
    message = customer_service_pb2.DetachPaymentMethodRequest(
        caller=caller.pb(),
        customer_id=customer_id,
        payment_method_id=payment_method_id,
        idempotency=idempotency,
    )
    reply = await rpc(request, core_of(request).customers.DetachPaymentMethod, message)
    return respond(reply, reply.response.payment_method.object_json)
