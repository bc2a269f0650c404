"""Invoice routes (secret key), DESIGN §9: list with filters, retrieve, and void; the core renders each
invoice."""

from __future__ import annotations

from connect.v1 import subscription_service_pb2 as pb
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing.subscription_bodies import (
    INVOICE_FILTERS,
    INVOICE_LIST_QUERY,
    INVOICE_STATUSES,
    list_filters,
    list_status,
)
from http_gateway.billing.subscriptions import no_parameters, page_json
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.validation import parse_query
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key


async def list_invoices(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, INVOICE_LIST_QUERY)
    message = pb.ListInvoicesRequest(caller=caller.pb(), **page_fields(query))
    if (status := list_status(query, INVOICE_STATUSES)) is not None:
        message.status = status  # type: ignore[assignment]
    for name, value in list_filters(query, INVOICE_FILTERS).items():
        setattr(message, name, value)
    reply = await rpc(request, core_of(request).subscriptions.ListInvoices, message, is_read=True)
    data = (invoice.object_json for invoice in reply.response.invoices)
    return respond(reply, page_json(request, data, reply.response))


async def get_invoice(request: Request, invoice_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = pb.GetInvoiceRequest(caller=caller.pb(), invoice_id=invoice_id)
    reply = await rpc(request, core_of(request).subscriptions.GetInvoice, message, is_read=True)
    return respond(reply, reply.response.invoice.object_json)


async def void_invoice(request: Request, invoice_id: str) -> HTTPResponse:
    """DRAFT or OPEN only (the core answers `invalid_state` otherwise); 200, not 201: nothing is created."""
    caller = await admit_api_key(request)
    idempotency, _ = await validated_with_key(request, caller.scope, lambda: no_parameters(request))
    message = pb.VoidInvoiceRequest(caller=caller.pb(), invoice_id=invoice_id, idempotency=idempotency)
    reply = await rpc(request, core_of(request).subscriptions.VoidInvoice, message)
    return respond(reply, reply.response.invoice.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("invoices", url_prefix="/invoices")
    bp.add_route(list_invoices, "", methods=["GET"], name="list_invoices")
    bp.add_route(get_invoice, "/<invoice_id>", methods=["GET"], name="get_invoice")
    bp.add_route(void_invoice, "/<invoice_id>/void", methods=["POST"], name="void_invoice")
    return bp
