"""Public hosted-checkout routes: page data (JSON, or the HTML page for browsers), completion, cancel."""

from __future__ import annotations

from typing import Any

from connect.v1 import checkout_pb2, checkout_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.serialization import gateway_json
from http_gateway.edge.validation import Field, validate_body, validate_fields
from http_gateway.payments.pages import checkout_pages, rendering
from http_gateway.payments.serializers import checkout_page_json, checkout_result_json
from http_gateway.pipeline.admission import (
    admit_public,
    check_idempotency,
    core_of,
    respond,
    rpc,
    validated_with_key,
)

COMPLETE_FIELDS = (
    Field("paymentMethod", "str", aliases=("payment_method",)),
    Field("paymentMethodDetails", "object", aliases=("payment_method_details",)),
)
DETAILS_FIELDS = (
    Field("card_number", "str", aliases=("cardNumber", "number")),
    Field("exp_month", "int32", aliases=("expMonth",)),
    Field("exp_year", "int32", aliases=("expYear",)),
    Field("cvc", "str"),
    Field("email", "str"),  # PayPal (DESIGN §5a)
)
_CARD_KEYS = ("card_number", "exp_month", "exp_year", "cvc")


def checkout_scope(charge_id: str) -> str:
    """Idempotency scope of the public checkout: one per charge, since there is no merchant credential."""
    return f"checkout:{charge_id}"


def prefers_html(request: Request) -> bool:
    """True for a browser (Accept ranks text/html above JSON); `*/*` alone means JSON."""
    return str(request.accept.match("application/json", "text/html")) == "text/html"


def render_checkout_page_html(request: Request, page: checkout_pb2.CheckoutPage) -> HTTPResponse | None:
    """The server-rendered payment page (payments/pages); None would mean: answer the JSON page data."""
    return checkout_pages.page_response(page)


async def get_checkout_page(request: Request, charge_id: str) -> HTTPResponse:
    hosted = request.path.startswith("/checkout/")
    browser = hosted and prefers_html(request)
    try:
        await admit_public(request)
        message = checkout_service_pb2.GetCheckoutPageRequest(charge_id=charge_id)
        reply = await rpc(
            request, core_of(request).checkout.GetCheckoutPage, message, is_read=True, pin=charge_id
        )
    except ApiError as err:
        if browser:  # a person gets a page, not an error envelope
            return rendering.problem_page(err)
        raise
    if browser:
        page_html = render_checkout_page_html(request, reply.response.page)
        if page_html is not None:
            return page_html
    response = respond(reply, gateway_json(checkout_page_json(reply.response.page)))
    if hosted:
        response.headers["Vary"] = "Accept"  # the same URL serves the HTML page to browsers
    return response


def _details(body: dict[str, Any]) -> dict[str, Any]:
    """Type-check paymentMethodDetails; whether the values are acceptable is the core's call (spec order)."""
    details = body.get("paymentMethodDetails", {})
    return validate_fields(details, DETAILS_FIELDS, prefix="paymentMethodDetails.")


async def complete_checkout(request: Request, charge_id: str) -> HTTPResponse:
    await admit_public(request)

    def validate() -> tuple[dict[str, Any], dict[str, Any]]:
        body = validate_body(request, COMPLETE_FIELDS)
        return body, _details(body)

    idempotency, (body, details) = await validated_with_key(request, checkout_scope(charge_id), validate)
    message = checkout_service_pb2.CompleteCheckoutRequest(
        charge_id=charge_id, payment_method=body.get("paymentMethod", ""), idempotency=idempotency
    )
    if any(key in details for key in _CARD_KEYS):
        message.card.CopyFrom(checkout_pb2.CardInput(**{k: details[k] for k in _CARD_KEYS if k in details}))
    if "email" in details:
        message.paypal.CopyFrom(checkout_pb2.PaypalInput(email=details["email"]))
    reply = await rpc(request, core_of(request).checkout.CompleteCheckout, message, pin=charge_id)
    return respond(reply, gateway_json(checkout_result_json(reply.response.result)))


async def cancel_checkout(request: Request, charge_id: str) -> HTTPResponse:
    """JSON {redirectUrl}; a plain HTML form post (the no-JS page) is sent on with 303 instead."""
    form_post = checkout_pages.is_form_post(request)
    try:
        await admit_public(request)
        idempotency = await check_idempotency(request, checkout_scope(charge_id))
        # Spec: "no body"; whatever a browser sends along is ignored rather than refused.
        message = checkout_service_pb2.CancelCheckoutRequest(charge_id=charge_id, idempotency=idempotency)
        reply = await rpc(request, core_of(request).checkout.CancelCheckout, message, pin=charge_id)
    except ApiError as err:
        if form_post:
            return rendering.problem_page(err)
        raise
    if form_post:
        return rendering.see_other(reply.response.redirect_url)
    return respond(reply, gateway_json({"redirectUrl": reply.response.redirect_url}))


def blueprint() -> Blueprint:
    bp = Blueprint("checkout", url_prefix="/checkout")
    bp.add_route(get_checkout_page, "/<charge_id>", methods=["GET"], name="get_checkout_page")
    bp.add_route(complete_checkout, "/<charge_id>/complete", methods=["POST"], name="complete_checkout")
    bp.add_route(cancel_checkout, "/<charge_id>/cancel", methods=["POST"], name="cancel_checkout")
    return bp
