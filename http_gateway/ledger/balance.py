"""Balance routes (secret key): GET /balance and GET /balance-transactions (DESIGN §9)."""

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
    "type": "str",
    "payout": "str",
    "currency": "str",
    "limit": "int32",
    "starting_after": "str",
}


async def get_balance(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = ledger_service_pb2.GetBalanceRequest(caller=caller.pb())
    reply = await rpc(request, core_of(request).ledger.GetBalance, message, is_read=True)
    return respond(reply, reply.response.balance.object_json)


async def list_balance_transactions(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    if query.get("type") == "":  # the proto's "" means "no filter"; an empty `type=` names no type
        raise ApiError.invalid("type", "Invalid type: must be one of the balance transaction types.")
    message = ledger_service_pb2.ListBalanceTransactionsRequest(
        caller=caller.pb(),
        type=query.get("type", ""),
        payout=query.get("payout", ""),
        currency=query.get("currency", ""),
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).ledger.ListBalanceTransactions, message, is_read=True)
    data = (t.object_json for t in reply.response.transactions)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)


def blueprint() -> Blueprint:
    bp = Blueprint("balance")
    bp.add_route(get_balance, "/balance", methods=["GET"], name="get_balance")
    bp.add_route(
        list_balance_transactions, "/balance-transactions", methods=["GET"], name="list_balance_transactions"
    )
    return bp
