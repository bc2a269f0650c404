"""Plan and price routes (secret key), DESIGN §9: plans, their prices, and a price's `active` switch.

A price never changes after creation except `active`: a PATCH naming any of its other fields is
refused by name (400 parameter_invalid), not silently ignored.
"""

from __future__ import annotations

from connect.v1 import catalog_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing.catalog_serializers import LIST_QUERY
from http_gateway.edge.errors import ApiError
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, parse_json_object, parse_query, validate_body, validate_fields
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc

PLAN_FIELDS = (
    Field("name", "str", required=True),
    Field("description", "str"),
    Field("metadata", "metadata"),
)
PRICE_FIELDS = (
    Field("amount_cents", "int", required=True),
    Field("currency", "str", required=True),
    Field("interval", "str", required=True),
    Field("interval_count", "int32"),
    Field("trial_period_days", "int32"),
    Field("metadata", "metadata"),
)
PRICE_UPDATE_FIELDS = (Field("active", "bool"),)
IMMUTABLE_PRICE_FIELDS = (
    "plan",
    "amount_cents",
    "currency",
    "interval",
    "interval_count",
    "trial_period_days",
)


async def create_plan(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, PLAN_FIELDS)
    message = catalog_service_pb2.CreatePlanRequest(
        caller=caller.pb(), name=body["name"], metadata=body.get("metadata", {}), idempotency=idempotency
    )
    if "description" in body:
        message.description = body["description"]
    reply = await rpc(request, core_of(request).catalog.CreatePlan, message)
    return respond(reply, reply.response.plan.object_json, status=201)


async def list_plans(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = catalog_service_pb2.ListPlansRequest(caller=caller.pb(), **page_fields(query))
    reply = await rpc(request, core_of(request).catalog.ListPlans, message, is_read=True)
    data = (p.object_json for p in reply.response.plans)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def get_plan(request: Request, plan_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = catalog_service_pb2.GetPlanRequest(caller=caller.pb(), plan_id=plan_id)
    reply = await rpc(request, core_of(request).catalog.GetPlan, message, is_read=True)
    return respond(reply, reply.response.plan.object_json)


async def create_price(request: Request, plan_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, PRICE_FIELDS)
    message = catalog_service_pb2.CreatePriceRequest(
        caller=caller.pb(),
        plan_id=plan_id,
        amount_cents=body["amount_cents"],
        currency=body["currency"],
        interval=body["interval"],
        interval_count=body.get("interval_count", 1),
        metadata=body.get("metadata", {}),
        idempotency=idempotency,
    )
    if "trial_period_days" in body:
        message.trial_period_days = body["trial_period_days"]
    reply = await rpc(request, core_of(request).catalog.CreatePrice, message)
    return respond(reply, reply.response.price.object_json, status=201)


async def list_prices(request: Request, plan_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = catalog_service_pb2.ListPricesRequest(
        caller=caller.pb(),
        plan_id=plan_id,
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).catalog.ListPrices, message, is_read=True)
    data = (p.object_json for p in reply.response.prices)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def get_price(request: Request, price_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = catalog_service_pb2.GetPriceRequest(caller=caller.pb(), price_id=price_id)
    reply = await rpc(request, core_of(request).catalog.GetPrice, message, is_read=True)
    return respond(reply, reply.response.price.object_json)


async def update_price(request: Request, price_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    data = parse_json_object(request)
    for name in IMMUTABLE_PRICE_FIELDS:
        if name in data:
            message_text = (
                f"A price cannot change after creation except `active`: create a new price to change {name}."
            )
            raise ApiError.invalid(name, message_text)
    body = validate_fields(data, PRICE_UPDATE_FIELDS)
    message = catalog_service_pb2.UpdatePriceRequest(
        caller=caller.pb(), price_id=price_id, idempotency=idempotency
    )
    if "active" in body:
        message.active = body["active"]
    reply = await rpc(request, core_of(request).catalog.UpdatePrice, message)
    return respond(reply, reply.response.price.object_json)


def plans_blueprint() -> Blueprint:
    bp = Blueprint("plans", url_prefix="/plans")
    bp.add_route(create_plan, "", methods=["POST"], name="create_plan")
    bp.add_route(list_plans, "", methods=["GET"], name="list_plans")
    bp.add_route(get_plan, "/<plan_id>", methods=["GET"], name="get_plan")
    bp.add_route(create_price, "/<plan_id>/prices", methods=["POST"], name="create_price")
    bp.add_route(list_prices, "/<plan_id>/prices", methods=["GET"], name="list_prices")
    return bp


def prices_blueprint() -> Blueprint:
    bp = Blueprint("prices", url_prefix="/prices")
    bp.add_route(get_price, "/<price_id>", methods=["GET"], name="get_price")
    bp.add_route(update_price, "/<price_id>", methods=["PATCH"], name="update_price")
    return bp
