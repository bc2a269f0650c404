"""The actions of the billing and money pages (DESIGN §10.7): a customer's credit adjustment, a
subscription's cancellation and an event's resend. Each form carries the anti-forgery token and its own
idempotency key (forms.py), so a double submit acts once; the core decides everything else."""

from __future__ import annotations

import re

from connect.v1 import customer_service_pb2, subscription_service_pb2, webhook_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.access import ActionFailed, Signed, core_action, signed_in_action, store_of
from http_gateway.dashboard.forms import idempotency
from http_gateway.dashboard.money import AmountError, parse_major
from http_gateway.dashboard.navigation import BASE
from http_gateway.pipeline.admission import core_of, rpc

ENDPOINT_ID = re.compile(r"we_[A-Za-z0-9]{1,64}")
CURRENCY = re.compile(r"[a-z]{3}")


@signed_in_action
async def adjust_credit(request: Request, signed: Signed, customer_id: str) -> HTTPResponse:
    """The amount as typed in the currency's major unit; "Credit" adds it to the customer's credit
    (a positive balance transaction, DESIGN §10.1), "Debit" takes it off (never below zero: the core's
    rule)."""
    back = f"{BASE}/customers/{customer_id}"
    form = signed.form
    currency = form.get("currency", "").strip().lower()
    if not CURRENCY.fullmatch(currency):
        raise ActionFailed("Enter a three-letter currency code such as usd.", back)
    try:
        cents = parse_major(form.get("amount", ""), currency)
    except AmountError as problem:
        raise ActionFailed(str(problem), back) from None
    signed_cents = cents if form.get("direction", "credit") == "credit" else -cents
    message = customer_service_pb2.CreateCustomerBalanceTransactionRequest(
        caller=signed.caller,
        customer_id=customer_id,
        amount_cents=signed_cents,
        currency=currency,
        idempotency=idempotency(form, f"/customers/{customer_id}/balance-transactions"),
    )
    description = form.get("description", "").strip()
    if description:
        message.description = description
    call = rpc(request, core_of(request).customers.CreateCustomerBalanceTransaction, message)
    await core_action(back, call)
    await store_of(request).flash(signed.session, "The credit balance was adjusted.")
    return rendering.see_other(back)


@signed_in_action
async def cancel_subscription(request: Request, signed: Signed, subscription_id: str) -> HTTPResponse:
    back = f"{BASE}/subscriptions/{subscription_id}"
    at_period_end = signed.form.get("when") == "period_end"
    message = subscription_service_pb2.CancelSubscriptionRequest(
        caller=signed.caller,
        subscription_id=subscription_id,
        at_period_end=at_period_end,
        prorate=not at_period_end and signed.form.get("prorate") == "true",
        idempotency=idempotency(signed.form, f"/subscriptions/{subscription_id}/cancel"),
    )
    call = rpc(request, core_of(request).subscriptions.CancelSubscription, message, pin=subscription_id)
    await core_action(f"{back}/cancel", call)
    notice = (
        "The subscription will cancel at the end of its current period."
        if at_period_end
        else "The subscription was canceled."
    )
    await store_of(request).flash(signed.session, notice)
    return rendering.see_other(back)


@signed_in_action
async def resend_event(request: Request, signed: Signed, event_id: str) -> HTTPResponse:
    """Back to the endpoint's deliveries when sent from there, otherwise to the event."""
    endpoint_id = signed.form.get("return_to", "").strip()
    back = (
        f"{BASE}/webhooks/{endpoint_id}"
        if ENDPOINT_ID.fullmatch(endpoint_id)
        else f"{BASE}/events/{event_id}"
    )
    message = webhook_service_pb2.ResendEventRequest(
        caller=signed.caller,
        event_id=event_id,
        idempotency=idempotency(signed.form, f"/events/{event_id}/resend"),
    )
    reply = await core_action(back, rpc(request, core_of(request).webhooks.ResendEvent, message))
    notice = (
        "The event was queued for delivery again."
        if reply.response.deliveries
        else "No endpoint listens to this event's type now, so nothing was sent."
    )
    await store_of(request).flash(signed.session, notice)
    return rendering.see_other(back)
