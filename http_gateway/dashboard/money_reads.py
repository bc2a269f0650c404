"""The core reads behind the dashboard's money and notification pages (balance, payouts, webhooks,
events), rendered with the REST serializers so a page shows what the API answers (DESIGN §10.7)."""

from __future__ import annotations

from connect.v1 import common_pb2, ledger_service_pb2, merchant_service_pb2, webhook_service_pb2
from sanic import Request

from http_gateway.dashboard.billing_reads import JSON, PAGE_SIZE, Listing
from http_gateway.dashboard.record_views import (
    delivery_view,
    endpoint_view,
    event_view,
    payout_settings_view,
    rendered,
)
from http_gateway.pipeline.admission import core_of, rpc


async def balance(request: Request, caller: common_pb2.Caller) -> JSON:
    message = ledger_service_pb2.GetBalanceRequest(caller=caller)
    reply = await rpc(request, core_of(request).ledger.GetBalance, message, is_read=True)
    return rendered(reply.response.balance)


async def balance_transactions(request: Request, caller: common_pb2.Caller, after: str) -> Listing:
    message = ledger_service_pb2.ListBalanceTransactionsRequest(
        caller=caller, limit=PAGE_SIZE, starting_after=after
    )
    reply = await rpc(request, core_of(request).ledger.ListBalanceTransactions, message, is_read=True)
    rows = [rendered(t) for t in reply.response.transactions]
    return Listing(rows, reply.response.has_more)


async def payouts(request: Request, caller: common_pb2.Caller, after: str) -> Listing:
    message = ledger_service_pb2.ListPayoutsRequest(caller=caller, limit=PAGE_SIZE, starting_after=after)
    reply = await rpc(request, core_of(request).ledger.ListPayouts, message, is_read=True)
    rows = [rendered(p) for p in reply.response.payouts]
    return Listing(rows, reply.response.has_more)


async def merchant(request: Request, merchant_id: str) -> JSON:
    """The merchant's profile: the payout schedule and the account it pays to (last four digits)."""
    message = merchant_service_pb2.GetMerchantRequest(merchant_id=merchant_id)
    reply = await rpc(request, core_of(request).merchants.GetMerchant, message, is_read=True)
    return payout_settings_view(reply.response.merchant)


async def webhook_endpoints(request: Request, caller: common_pb2.Caller) -> list[JSON]:
    message = webhook_service_pb2.ListWebhookEndpointsRequest(caller=caller)
    reply = await rpc(request, core_of(request).webhooks.ListWebhookEndpoints, message, is_read=True)
    return [endpoint_view(e) for e in reply.response.webhook_endpoints]


async def webhook_deliveries(
    request: Request, caller: common_pb2.Caller, endpoint_id: str, after: str
) -> Listing:
    message = webhook_service_pb2.ListWebhookDeliveriesRequest(
        caller=caller, webhook_endpoint_id=endpoint_id, limit=PAGE_SIZE, starting_after=after
    )
    reply = await rpc(request, core_of(request).webhooks.ListWebhookDeliveries, message, is_read=True)
    rows = [delivery_view(d) for d in reply.response.deliveries]
    return Listing(rows, reply.response.has_more)


async def events(request: Request, caller: common_pb2.Caller, after: str, event_type: str = "") -> Listing:
    message = webhook_service_pb2.ListEventsRequest(
        caller=caller, type=event_type, limit=PAGE_SIZE, starting_after=after
    )
    reply = await rpc(request, core_of(request).webhooks.ListEvents, message, is_read=True)
    rows = [event_view(e) for e in reply.response.events]
    return Listing(rows, reply.response.has_more)


async def event(request: Request, caller: common_pb2.Caller, event_id: str) -> JSON:
    message = webhook_service_pb2.GetEventRequest(caller=caller, event_id=event_id)
    reply = await rpc(request, core_of(request).webhooks.GetEvent, message, is_read=True)
    return event_view(reply.response.event)
