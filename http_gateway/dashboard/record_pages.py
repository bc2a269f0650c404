"""The billing and money pages of the dashboard (DESIGN §10.7): customers, subscriptions, invoices,
balance, payouts, webhooks and events — reads only; their actions are in record_actions.py."""

from __future__ import annotations

import json
from typing import Any

from connect import errors
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import billing_reads, money_reads, rendering
from http_gateway.dashboard.access import Signed, page_flash, signed_in_page
from http_gateway.dashboard.billing_reads import Listing
from http_gateway.dashboard.pagination import Pagination, page_cursor, query_value
from http_gateway.edge.errors import ApiError


async def _render(request: Request, signed: Signed, template: str, **context: Any) -> HTTPResponse:
    flash = await page_flash(request, signed)
    return rendering.render(request, template, context, session=signed.session, flash=flash)


def _pages(request: Request, listing: Listing, **keep: str) -> Pagination:
    return Pagination.of(request, listing.ids, listing.has_more, keep=keep)


@signed_in_page
async def customers(request: Request, signed: Signed) -> HTTPResponse:
    email = query_value(request, "email")
    listing = await billing_reads.customers(request, signed.caller, page_cursor(request), email)
    pagination = _pages(request, listing, email=email)
    return await _render(
        request, signed, "customers.html", listing=listing, pagination=pagination, email=email
    )


@signed_in_page
async def customer(request: Request, signed: Signed, customer_id: str) -> HTTPResponse:
    caller = signed.caller
    found = await billing_reads.customer(request, caller, customer_id)
    credits = await billing_reads.credit_transactions(request, caller, customer_id, page_cursor(request))
    methods = await billing_reads.payment_methods(request, caller, customer_id)
    subs = await billing_reads.subscriptions(request, caller, "", customer_id=customer_id)
    invoices = await billing_reads.invoices(request, caller, "", customer_id=customer_id)
    currencies = list(found["credit_balance"])
    return await _render(
        request,
        signed,
        "customer.html",
        customer=found,
        credits=credits,
        pagination=_pages(request, credits),
        methods=methods,
        subscriptions=subs,
        invoices=invoices,
        currency=currencies[0] if currencies else "usd",
    )


@signed_in_page
async def subscriptions(request: Request, signed: Signed) -> HTTPResponse:
    customer_id = query_value(request, "customer")
    listing = await billing_reads.subscriptions(
        request, signed.caller, page_cursor(request), customer_id=customer_id
    )
    pagination = _pages(request, listing, customer=customer_id)
    return await _render(
        request, signed, "subscriptions.html", listing=listing, pagination=pagination, customer_id=customer_id
    )


@signed_in_page
async def subscription(request: Request, signed: Signed, subscription_id: str) -> HTTPResponse:
    sub = await billing_reads.subscription(request, signed.caller, subscription_id)
    invoices = await billing_reads.invoices(request, signed.caller, "", subscription_id=subscription_id)
    return await _render(request, signed, "subscription.html", sub=sub, invoices=invoices)


@signed_in_page
async def subscription_cancel(request: Request, signed: Signed, subscription_id: str) -> HTTPResponse:
    """The confirmation before a cancellation: nothing ends from a single click."""
    sub = await billing_reads.subscription(request, signed.caller, subscription_id)
    return await _render(request, signed, "subscription_cancel.html", sub=sub)


@signed_in_page
async def invoices(request: Request, signed: Signed) -> HTTPResponse:
    customer_id = query_value(request, "customer")
    listing = await billing_reads.invoices(
        request, signed.caller, page_cursor(request), customer_id=customer_id
    )
    pagination = _pages(request, listing, customer=customer_id)
    return await _render(
        request, signed, "invoices.html", listing=listing, pagination=pagination, customer_id=customer_id
    )


@signed_in_page
async def invoice(request: Request, signed: Signed, invoice_id: str) -> HTTPResponse:
    inv = await billing_reads.invoice(request, signed.caller, invoice_id)
    charges = await billing_reads.attempts(request, signed.caller, invoice_id)
    return await _render(request, signed, "invoice.html", inv=inv, charges=charges)


@signed_in_page
async def balance(request: Request, signed: Signed) -> HTTPResponse:
    amounts = await money_reads.balance(request, signed.caller)
    listing = await money_reads.balance_transactions(request, signed.caller, page_cursor(request))
    return await _render(
        request, signed, "balance.html", balance=amounts, listing=listing, pagination=_pages(request, listing)
    )


@signed_in_page
async def payouts(request: Request, signed: Signed) -> HTTPResponse:
    merchant = await money_reads.merchant(request, signed.merchant_id)
    listing = await money_reads.payouts(request, signed.caller, page_cursor(request))
    return await _render(
        request,
        signed,
        "payouts.html",
        merchant=merchant,
        listing=listing,
        pagination=_pages(request, listing),
    )


@signed_in_page
async def webhooks(request: Request, signed: Signed) -> HTTPResponse:
    endpoints = await money_reads.webhook_endpoints(request, signed.caller)
    return await _render(request, signed, "webhooks.html", endpoints=endpoints)


@signed_in_page
async def webhook_endpoint(request: Request, signed: Signed, endpoint_id: str) -> HTTPResponse:
    endpoints = await money_reads.webhook_endpoints(request, signed.caller)
    endpoint = next((e for e in endpoints if e["id"] == endpoint_id), None)
    if endpoint is None:
        raise ApiError.of(errors.RESOURCE_MISSING, f"No such webhook endpoint: '{endpoint_id}'")
    listing = await money_reads.webhook_deliveries(request, signed.caller, endpoint_id, page_cursor(request))
    return await _render(
        request,
        signed,
        "webhook_endpoint.html",
        endpoint=endpoint,
        listing=listing,
        pagination=_pages(request, listing),
    )


@signed_in_page
async def events(request: Request, signed: Signed) -> HTTPResponse:
    event_type = query_value(request, "type")
    listing = await money_reads.events(request, signed.caller, page_cursor(request), event_type)
    pagination = _pages(request, listing, type=event_type)
    return await _render(
        request, signed, "events.html", listing=listing, pagination=pagination, event_type=event_type
    )


@signed_in_page
async def event(request: Request, signed: Signed, event_id: str) -> HTTPResponse:
    found = await money_reads.event(request, signed.caller, event_id)
    payload = json.dumps(found, indent=2, sort_keys=True)
    return await _render(request, signed, "event.html", event=found, payload=payload)
