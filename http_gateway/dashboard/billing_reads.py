"""The core reads behind the dashboard's billing pages (customers, subscriptions, invoices), rendered
with the REST serializers so a page shows exactly what the API answers (DESIGN §10.7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connect.v1 import (
    charge_service_pb2,
    common_pb2,
    customer_service_pb2,
    subscription_service_pb2,
)
from sanic import Request

from http_gateway.dashboard.pagination import PAGE_SIZE
from http_gateway.dashboard.record_views import rendered
from http_gateway.pipeline.admission import core_of, rpc

JSON = dict[str, Any]
SECTION_SIZE = 10
ATTEMPTS_SHOWN = 100


@dataclass(frozen=True, slots=True)
class Listing:
    """One page of a list: its rows (API objects) and whether more follow the last."""

    rows: list[JSON]
    has_more: bool = False

    @property
    def ids(self) -> list[str]:
        return [str(row["id"]) for row in self.rows]


def _listing(rows: list[JSON], has_more: bool) -> Listing:
    return Listing(rows, has_more)


def _objects(messages: Any) -> list[JSON]:
    return [rendered(m) for m in messages]


async def customers(request: Request, caller: common_pb2.Caller, after: str, email: str = "") -> Listing:
    message = customer_service_pb2.ListCustomersRequest(caller=caller, limit=PAGE_SIZE, starting_after=after)
    if email:
        message.email = email
    reply = await rpc(request, core_of(request).customers.ListCustomers, message, is_read=True)
    return _listing([rendered(c) for c in reply.response.customers], reply.response.has_more)


async def customer(request: Request, caller: common_pb2.Caller, customer_id: str) -> JSON:
    message = customer_service_pb2.GetCustomerRequest(caller=caller, customer_id=customer_id)
    reply = await rpc(request, core_of(request).customers.GetCustomer, message, is_read=True)
    return rendered(reply.response.customer)


async def payment_methods(request: Request, caller: common_pb2.Caller, customer_id: str) -> Listing:
    message = customer_service_pb2.ListPaymentMethodsRequest(
        caller=caller, customer_id=customer_id, limit=SECTION_SIZE
    )
    reply = await rpc(request, core_of(request).customers.ListPaymentMethods, message, is_read=True)
    methods = [rendered(m) for m in reply.response.payment_methods]
    return _listing(methods, reply.response.has_more)


async def credit_transactions(
    request: Request, caller: common_pb2.Caller, customer_id: str, after: str = ""
) -> Listing:
    message = customer_service_pb2.ListCustomerBalanceTransactionsRequest(
        caller=caller, customer_id=customer_id, limit=SECTION_SIZE, starting_after=after
    )
    reply = await rpc(
        request, core_of(request).customers.ListCustomerBalanceTransactions, message, is_read=True
    )
    rows = [rendered(t) for t in reply.response.transactions]
    return _listing(rows, reply.response.has_more)


async def subscriptions(
    request: Request, caller: common_pb2.Caller, after: str, *, customer_id: str = ""
) -> Listing:
    message = subscription_service_pb2.ListSubscriptionsRequest(
        caller=caller, limit=SECTION_SIZE if customer_id else PAGE_SIZE, starting_after=after
    )
    if customer_id:
        message.customer_id = customer_id
    reply = await rpc(request, core_of(request).subscriptions.ListSubscriptions, message, is_read=True)
    return _listing(_objects(reply.response.subscriptions), reply.response.has_more)


async def subscription(request: Request, caller: common_pb2.Caller, subscription_id: str) -> JSON:
    message = subscription_service_pb2.GetSubscriptionRequest(caller=caller, subscription_id=subscription_id)
    reply = await rpc(request, core_of(request).subscriptions.GetSubscription, message, is_read=True)
    return rendered(reply.response.subscription)


async def invoices(
    request: Request,
    caller: common_pb2.Caller,
    after: str,
    *,
    customer_id: str = "",
    subscription_id: str = "",
) -> Listing:
    scoped = customer_id or subscription_id
    message = subscription_service_pb2.ListInvoicesRequest(
        caller=caller, limit=SECTION_SIZE if scoped else PAGE_SIZE, starting_after=after
    )
    if customer_id:
        message.customer_id = customer_id
    if subscription_id:
        message.subscription_id = subscription_id
    reply = await rpc(request, core_of(request).subscriptions.ListInvoices, message, is_read=True)
    return _listing(_objects(reply.response.invoices), reply.response.has_more)


async def invoice(request: Request, caller: common_pb2.Caller, invoice_id: str) -> JSON:
    message = subscription_service_pb2.GetInvoiceRequest(caller=caller, invoice_id=invoice_id)
    reply = await rpc(request, core_of(request).subscriptions.GetInvoice, message, is_read=True)
    return rendered(reply.response.invoice)


async def attempts(request: Request, caller: common_pb2.Caller, invoice_id: str) -> list[JSON]:
    """The invoice's payment attempts: its charges, newest first (dunning makes a handful at most)."""
    message = charge_service_pb2.ListChargesRequest(
        caller=caller, limit=ATTEMPTS_SHOWN, invoice_id=invoice_id
    )
    reply = await rpc(request, core_of(request).charges.ListCharges, message, is_read=True)
    return [rendered(c) for c in reply.response.charges]
