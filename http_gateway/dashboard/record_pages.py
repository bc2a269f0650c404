"""The billing and money pages of the dashboard (DESIGN §10.7): customers, subscriptions, invoices,
balance, payouts, webhooks and events — reads only; their actions are in record_actions.py."""

from __future__ import annotations

import json

from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import billing_reads, money_reads
from http_gateway.dashboard.record_kit import caller_of, render_page


NOTICES = {
    "credit_adjusted": "The credit balance was adjusted.",
    "subscription_canceled": "The subscription was canceled.",
    "subscription_cancels": "The subscription will cancel at the end of its current period.",
    "resent": "The event was queued for delivery again.",
    "resent_nowhere": "No endpoint listens to this event's type now, so nothing was sent.",
}


def _arg(request: Request, name: str) -> str:
    return (request.args.get(name) or "").strip()[:200]


def _notice(request: Request, given: str) -> str:
    """A message the page shows after an action redirected here (`?notice=`), never free text."""
    return given or NOTICES.get(_arg(request, "notice"), "")


async def customers_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after, email = _arg(request, "after"), _arg(request, "email")
    listing = await billing_reads.customers(request, caller, after, email)
    return await render_page(request, "customers.html", listing=listing, after=after, email=email)


async def customer_page(request: Request, customer_id: str) -> HTTPResponse:
    return await render_customer(request, customer_id)


async def render_customer(
    request: Request,
    customer_id: str,
    *,
    form: dict[str, str] | None = None,
    notice: str = "",
    error: str = "",
    status: int = 200,
) -> HTTPResponse:
    caller = await caller_of(request)
    customer = await billing_reads.customer(request, caller, customer_id)
    credits = await billing_reads.credit_transactions(
        request, caller, customer_id, _arg(request, "credits_after")
    )
    methods = await billing_reads.payment_methods(request, caller, customer_id)
    subscriptions = await billing_reads.subscriptions(request, caller, "", customer_id=customer_id)
    invoices = await billing_reads.invoices(request, caller, "", customer_id=customer_id)
    currencies = list(customer["credit_balance"])
    blank = {"amount": "", "currency": currencies[0] if currencies else "usd", "description": ""}
    return await render_page(
        request,
        "customer.html",
        status=status,
        customer=customer,
        credits=credits,
        methods=methods,
        subscriptions=subscriptions,
        invoices=invoices,
        form=form or blank,
        notice=_notice(request, notice),
        error=error,
    )


async def subscriptions_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after, customer_id = _arg(request, "after"), _arg(request, "customer")
    listing = await billing_reads.subscriptions(request, caller, after, customer_id=customer_id)
    return await render_page(
        request, "subscriptions.html", listing=listing, after=after, customer_id=customer_id
    )


async def subscription_page(
    request: Request, subscription_id: str, *, notice: str = "", error: str = "", status: int = 200
) -> HTTPResponse:
    caller = await caller_of(request)
    sub = await billing_reads.subscription(request, caller, subscription_id)
    invoices = await billing_reads.invoices(request, caller, "", subscription_id=subscription_id)
    return await render_page(
        request,
        "subscription.html",
        status=status,
        sub=sub,
        invoices=invoices,
        notice=_notice(request, notice),
        error=error,
    )


async def subscription_cancel_page(
    request: Request, subscription_id: str, *, error: str = "", status: int = 200
) -> HTTPResponse:
    caller = await caller_of(request)
    sub = await billing_reads.subscription(request, caller, subscription_id)
    return await render_page(request, "subscription_cancel.html", status=status, sub=sub, error=error)


async def invoices_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after, customer_id = _arg(request, "after"), _arg(request, "customer")
    listing = await billing_reads.invoices(request, caller, after, customer_id=customer_id)
    return await render_page(request, "invoices.html", listing=listing, after=after, customer_id=customer_id)


async def invoice_page(request: Request, invoice_id: str) -> HTTPResponse:
    caller = await caller_of(request)
    inv = await billing_reads.invoice(request, caller, invoice_id)
    charge = await billing_reads.charge_or_none(request, caller, inv.get("charge") or "")
    return await render_page(request, "invoice.html", inv=inv, charge=charge)


async def balance_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after = _arg(request, "after")
    balance = await money_reads.balance(request, caller)
    listing = await money_reads.balance_transactions(request, caller, after)
    return await render_page(request, "balance.html", balance=balance, listing=listing, after=after)


async def payouts_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after = _arg(request, "after")
    merchant = await money_reads.merchant(request, caller.merchant_id)
    listing = await money_reads.payouts(request, caller, after)
    return await render_page(request, "payouts.html", merchant=merchant, listing=listing, after=after)


async def webhooks_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    endpoints = await money_reads.webhook_endpoints(request, caller)
    return await render_page(request, "webhooks.html", endpoints=endpoints)


async def webhook_endpoint_page(
    request: Request, endpoint_id: str, *, notice: str = "", error: str = "", status: int = 200
) -> HTTPResponse:
    caller = await caller_of(request)
    after = _arg(request, "after")
    endpoints = await money_reads.webhook_endpoints(request, caller)
    endpoint = next((e for e in endpoints if e["id"] == endpoint_id), None)
    if endpoint is None:
        return await render_page(request, "record_missing.html", status=404, what="webhook endpoint")
    listing = await money_reads.webhook_deliveries(request, caller, endpoint_id, after)
    return await render_page(
        request,
        "webhook_endpoint.html",
        status=status,
        endpoint=endpoint,
        listing=listing,
        after=after,
        notice=_notice(request, notice),
        error=error,
    )


async def events_page(request: Request) -> HTTPResponse:
    caller = await caller_of(request)
    after, event_type = _arg(request, "after"), _arg(request, "type")
    listing = await money_reads.events(request, caller, after, event_type)
    return await render_page(request, "events.html", listing=listing, after=after, event_type=event_type)


async def event_page(
    request: Request, event_id: str, *, notice: str = "", error: str = "", status: int = 200
) -> HTTPResponse:
    caller = await caller_of(request)
    event = await money_reads.event(request, caller, event_id)
    payload = json.dumps(event, indent=2, sort_keys=True)
    return await render_page(
        request,
        "event.html",
        status=status,
        event=event,
        payload=payload,
        notice=_notice(request, notice),
        error=error,
    )
