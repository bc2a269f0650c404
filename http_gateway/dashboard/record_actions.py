"""The actions of the billing and money pages (DESIGN §10.7): a customer's credit adjustment, a
subscription's cancellation and an event's resend. Each form carries the anti-forgery token and its own
idempotency key (record_kit.py), so a double submit acts once; the core decides everything else."""

from __future__ import annotations

import re

from connect.v1 import customer_service_pb2, subscription_service_pb2, webhook_service_pb2
from sanic import Request
from sanic.response import HTTPResponse, redirect

from http_gateway.dashboard import record_pages
from http_gateway.dashboard.record_kit import amount_in_minor_units, checked_form, page_url
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.admission import core_of, rpc

ENDPOINT_ID = re.compile(r"we_[A-Za-z0-9]{1,64}")


async def adjust_credit(request: Request, customer_id: str) -> HTTPResponse:
    """Amount in the currency's major unit as typed ("-5.00"); negative gives the customer credit."""
    form = await checked_form(request)
    typed = {name: (form.fields.get(name) or "").strip() for name in ("amount", "currency", "description")}
    currency = typed["currency"].lower()
    try:
        cents = amount_in_minor_units(typed["amount"], currency)
    except ValueError as problem:
        return await record_pages.render_customer(
            request, customer_id, form=typed, error=str(problem), status=400
        )
    message = customer_service_pb2.CreateCustomerBalanceTransactionRequest(
        caller=form.caller,
        customer_id=customer_id,
        amount_cents=cents,
        currency=currency,
        idempotency=form.idempotency,
    )
    if typed["description"]:
        message.description = typed["description"]
    try:
        await rpc(request, core_of(request).customers.CreateCustomerBalanceTransaction, message)
    except ApiError as refused:
        return await record_pages.render_customer(
            request, customer_id, form=typed, error=refused.message, status=refused.http_status
        )
    return redirect(page_url(request, f"/customers/{customer_id}", notice="credit_adjusted"), status=303)


async def cancel_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    form = await checked_form(request)
    at_period_end = form.fields.get("when") == "period_end"
    message = subscription_service_pb2.CancelSubscriptionRequest(
        caller=form.caller,
        subscription_id=subscription_id,
        at_period_end=at_period_end,
        prorate=not at_period_end and form.fields.get("prorate") == "true",
        idempotency=form.idempotency,
    )
    try:
        await rpc(request, core_of(request).subscriptions.CancelSubscription, message)
    except ApiError as refused:
        return await record_pages.subscription_cancel_page(
            request, subscription_id, error=refused.message, status=refused.http_status
        )
    notice = "subscription_cancels" if at_period_end else "subscription_canceled"
    return redirect(page_url(request, f"/subscriptions/{subscription_id}", notice=notice), status=303)


async def resend_event(request: Request, event_id: str) -> HTTPResponse:
    """Back to the endpoint's deliveries when sent from there, otherwise to the event."""
    form = await checked_form(request)
    endpoint_id = (form.fields.get("return_to") or "").strip()
    endpoint_id = endpoint_id if ENDPOINT_ID.fullmatch(endpoint_id) else ""
    message = webhook_service_pb2.ResendEventRequest(
        caller=form.caller, event_id=event_id, idempotency=form.idempotency
    )
    try:
        reply = await rpc(request, core_of(request).webhooks.ResendEvent, message)
    except ApiError as refused:
        if endpoint_id:
            return await record_pages.webhook_endpoint_page(
                request, endpoint_id, error=refused.message, status=refused.http_status
            )
        return await record_pages.event_page(request, event_id, error=refused.message, status=refused.http_status)
    notice = "resent" if reply.response.deliveries else "resent_nowhere"
    back = f"/webhooks/{endpoint_id}" if ENDPOINT_ID.fullmatch(endpoint_id) else f"/events/{event_id}"
    return redirect(page_url(request, back, notice=notice), status=303)
