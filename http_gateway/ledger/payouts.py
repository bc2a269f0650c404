"""Payout routes (secret key): GET /payouts and GET /payouts/{id} (DESIGN §9)."""

from __future__ import annotations

from connect.v1 import ledger_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Kind, parse_query
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc

LIST_QUERY: dict[str, Kind] = {
    "status": "str",
    "currency": "str",
    "limit": "int32",
    "starting_after": "str",
}


async def list_payouts(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    if query.get("status") == "":  # the proto's "" means "no filter"; an empty `status=` names none
        raise ApiError.invalid("status", "Invalid status: must be pending, paid or failed.")
    message = ledger_service_pb2.ListPayoutsRequest(
        caller=caller.pb(),
        status=query.get("status", ""),
        currency=query.get("currency", ""),
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).ledger.ListPayouts, message, is_read=True)
    data = (p.object_json for p in reply.response.payouts)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


async def get_payout(request: Request, payout_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = ledger_service_pb2.GetPayoutRequest(caller=caller.pb(), id=payout_id)
    reply = await rpc(request, core_of(request).ledger.GetPayout, message, is_read=True)
    return respond(reply, reply.response.payout.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("payouts")
    bp.add_route(list_payouts, "/payouts", methods=["GET"], name="list_payouts")
    bp.add_route(get_payout, "/payouts/<payout_id>", methods=["GET"], name="get_payout")
    return bp
