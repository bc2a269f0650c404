"""Tax rate routes (secret key): create, list, retrieve, update (display_name, active) — DESIGN §9."""

from __future__ import annotations

from connect.v1 import catalog_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing.catalog_serializers import LIST_QUERY
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, parse_query, validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc

CREATE_FIELDS = (
    # A string, never a JSON number: 8.25 as a binary float is not 8.25.
    Field("percentage", "str", required=True),
    Field("display_name", "str", required=True),
    Field("inclusive", "bool", required=True),
    Field("jurisdiction", "str"),
    Field("country", "str"),
    Field("state", "str"),
    Field("metadata", "metadata"),
)
# The percentage, inclusiveness and place never change: an invoice must be explainable later.
UPDATE_FIELDS = (Field("display_name", "str"), Field("active", "bool"))


async def create_tax_rate(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, CREATE_FIELDS)
    message = catalog_service_pb2.CreateTaxRateRequest(
        caller=caller.pb(),
        percentage=body["percentage"],
        display_name=body["display_name"],
        inclusive=body["inclusive"],
        metadata=body.get("metadata", {}),
        idempotency=idempotency,
    )
    for name in ("jurisdiction", "country", "state"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).catalog.CreateTaxRate, message)
    return respond(reply, reply.response.tax_rate.object_json, status=201)


async def list_tax_rates(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = catalog_service_pb2.ListTaxRatesRequest(caller=caller.pb(), **page_fields(query))
    reply = await rpc(request, core_of(request).catalog.ListTaxRates, message, is_read=True)
    data = (r.object_json for r in reply.response.tax_rates)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def get_tax_rate(request: Request, tax_rate_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = catalog_service_pb2.GetTaxRateRequest(caller=caller.pb(), tax_rate_id=tax_rate_id)
    reply = await rpc(request, core_of(request).catalog.GetTaxRate, message, is_read=True)
    return respond(reply, reply.response.tax_rate.object_json)


async def update_tax_rate(request: Request, tax_rate_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, UPDATE_FIELDS)
    message = catalog_service_pb2.UpdateTaxRateRequest(
        caller=caller.pb(), tax_rate_id=tax_rate_id, idempotency=idempotency
    )
    for name in ("display_name", "active"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).catalog.UpdateTaxRate, message)
    return respond(reply, reply.response.tax_rate.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("tax_rates", url_prefix="/tax-rates")
    bp.add_route(create_tax_rate, "", methods=["POST"], name="create_tax_rate")
    bp.add_route(list_tax_rates, "", methods=["GET"], name="list_tax_rates")
    bp.add_route(get_tax_rate, "/<tax_rate_id>", methods=["GET"], name="get_tax_rate")
    bp.add_route(update_tax_rate, "/<tax_rate_id>", methods=["PATCH"], name="update_tax_rate")
    return bp
