"""Customer routes (secret key): create, list, retrieve, update."""

from __future__ import annotations

from typing import Any

from connect.v1 import customer_pb2, customer_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing import customer_balance, payment_methods
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, Kind, parse_query, validate_body, validate_fields
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key

ADDRESS_FIELDS = (
    Field("line1", "str"),
    Field("city", "str"),
    Field("state", "str"),
    Field("postal_code", "str"),
    Field("country", "str"),
)
CREATE_FIELDS = (
    Field("email", "str", required=True),
    Field("name", "str"),
    Field("address", "object"),
    Field("metadata", "metadata"),
)
UPDATE_FIELDS = (
    Field("email", "str"),
    Field("name", "str"),
    Field("address", "object"),
    Field("metadata", "metadata"),
    Field("default_payment_method", "str"),
)
LIST_QUERY: dict[str, Kind] = {"email": "str", "limit": "int32", "starting_after": "str"}
# As for charges: the proto's 0 means "default", so an explicit limit=0 can only be refused here.


def validated_body(request: Request, fields: tuple[Field, ...]) -> dict[str, Any]:
    """The body with a nested address checked part by part (params `address.city`, …)."""
    body = validate_body(request, fields)
    if "address" in body:
        body["address"] = customer_pb2.Address(
            **validate_fields(body["address"], ADDRESS_FIELDS, prefix="address.")
        )
    return body


async def create_customer(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validated_body(request, CREATE_FIELDS)
    )
    message = customer_service_pb2.CreateCustomerRequest(
        caller=caller.pb(),
        email=body["email"],
        metadata=body.get("metadata", {}),
        idempotency=idempotency,
    )
    if "name" in body:
        message.name = body["name"]
    if "address" in body:
        message.address.CopyFrom(body["address"])
    reply = await rpc(request, core_of(request).customers.CreateCustomer, message)
    return respond(reply, reply.response.customer.object_json, status=201)


async def list_customers(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = customer_service_pb2.ListCustomersRequest(caller=caller.pb(), **page_fields(query))
    if "email" in query:
        message.email = query["email"]
    reply = await rpc(request, core_of(request).customers.ListCustomers, message, is_read=True)
    data = (c.object_json for c in reply.response.customers)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def get_customer(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = customer_service_pb2.GetCustomerRequest(caller=caller.pb(), customer_id=customer_id)
    reply = await rpc(request, core_of(request).customers.GetCustomer, message, is_read=True)
    return respond(reply, reply.response.customer.object_json)


async def update_customer(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validated_body(request, UPDATE_FIELDS)
    )
    message = customer_service_pb2.UpdateCustomerRequest(
        caller=caller.pb(), customer_id=customer_id, idempotency=idempotency
    )
    for name in ("email", "name", "default_payment_method"):
        if name in body:
            setattr(message, name, body[name])
    if "address" in body:
        message.address.CopyFrom(body["address"])
    if "metadata" in body:
        message.metadata.values.update(body["metadata"])
        message.metadata.SetInParent()
    reply = await rpc(request, core_of(request).customers.UpdateCustomer, message)
    return respond(reply, reply.response.customer.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("customers", url_prefix="/customers")
    bp.add_route(create_customer, "", methods=["POST"], name="create_customer")
    bp.add_route(list_customers, "", methods=["GET"], name="list_customers")
    bp.add_route(get_customer, "/<customer_id>", methods=["GET"], name="get_customer")
    bp.add_route(update_customer, "/<customer_id>", methods=["PATCH"], name="update_customer")
    methods = "/<customer_id>/payment-methods"
    bp.add_route(
        payment_methods.attach_payment_method, methods, methods=["POST"], name="attach_payment_method"
    )
    bp.add_route(payment_methods.list_payment_methods, methods, methods=["GET"], name="list_payment_methods")
    bp.add_route(
        payment_methods.detach_payment_method,
        methods + "/<payment_method_id>",
        methods=["DELETE"],
        name="detach_payment_method",
    )
    balance = "/<customer_id>/balance-transactions"
    bp.add_route(
        customer_balance.create_balance_transaction,
        balance,
        methods=["POST"],
        name="create_balance_transaction",
    )
    bp.add_route(
        customer_balance.list_balance_transactions, balance, methods=["GET"], name="list_balance_transactions"
    )
    return bp
