"""Customer credit balance routes (secret key; DESIGN §10.1): a customer's balance transactions, and a
merchant's adjustment of the balance."""

from __future__ import annotations

from connect.v1 import customer_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.edge.pagination import PAGE_QUERY, page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import Field, parse_query, validate_body
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key

ADJUSTMENT_FIELDS = (
    Field("amount_cents", "int", required=True),
    Field("currency", "str", required=True),
    Field("description", "str"),
)
LIST_QUERY = PAGE_QUERY


async def create_balance_transaction(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, ADJUSTMENT_FIELDS)
    )
    message = customer_service_pb2.CreateCustomerBalanceTransactionRequest(
        caller=caller.pb(),
        customer_id=customer_id,
        amount_cents=body["amount_cents"],
        currency=body["currency"],
        idempotency=idempotency,
    )
    if body.get("description") is not None:
        message.description = body["description"]
    reply = await rpc(request, core_of(request).customers.CreateCustomerBalanceTransaction, message)
    return respond(reply, reply.response.transaction.object_json, status=201)


async def list_balance_transactions(request: Request, customer_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, LIST_QUERY)
    message = customer_service_pb2.ListCustomerBalanceTransactionsRequest(
        caller=caller.pb(), customer_id=customer_id, **page_fields(query)
    )
    reply = await rpc(
        request, core_of(request).customers.ListCustomerBalanceTransactions, message, is_read=True
    )
    data = (t.object_json for t in reply.response.transactions)
    body = list_body(
        data, url=request.path, has_more=reply.response.has_more, total_count=reply.response.total_count
    )
    return respond(reply, body)
