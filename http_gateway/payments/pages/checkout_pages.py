"""The hosted checkout HTML: the page itself, the no-JS form post, and the static assets (Blueprint)."""

from __future__ import annotations

from typing import Any

from connect.v1 import checkout_pb2, checkout_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.forms import posted_form
from http_gateway.edge.validation import check_string
from http_gateway.payments.pages import assets, rendering
from http_gateway.payments.pages.view import FORM_FIELDS, FormState, checkout_view, decline_message
from http_gateway.pipeline.admission import admit_public, core_of, rpc

_DETAILS = "paymentMethodDetails"
# Typed values a re-rendered form may show again; never the card number or the CVC.
_ECHOED = ("exp_month", "exp_year", "email")


def page_response(page: checkout_pb2.CheckoutPage) -> HTTPResponse:
    """GET in a browser: the payment form for a payable charge, else the page of its state."""
    view = checkout_view(page)
    return rendering.checkout_page(view) if view.valid else rendering.state_page(view)


def is_form_post(request: Request) -> bool:
    """A plain HTML form (no JS) posted this request."""
    content_type = request.headers.get("content-type", "")
    return content_type.split(";")[0].strip().lower() == "application/x-www-form-urlencoded"


def _text(form: Any, name: str) -> str:
    return check_string(form.get(name) or "", f"{_DETAILS}.{name}").strip()


def _number(form: Any, name: str, label: str) -> int:
    """Digits only; empty is 0, which the core then reports in its own words."""
    text = _text(form, name)
    if not text:
        return 0
    if not text.isdigit() or len(text) > 9:
        raise ApiError.invalid(f"{_DETAILS}.{name}", f"The {label} must be a number.")
    return int(text)


def completion_from_form(charge_id: str, form: Any) -> checkout_service_pb2.CompleteCheckoutRequest:
    """The form fields as the JSON endpoint's request; only syntax is handled here, rules are the core's."""
    method = check_string(form.get("payment_method") or "card", "paymentMethod").strip()
    message = checkout_service_pb2.CompleteCheckoutRequest(charge_id=charge_id, payment_method=method)
    if method == "paypal":
        message.paypal.CopyFrom(checkout_pb2.PaypalInput(email=_text(form, "email")))
    elif method == "card":
        year = _number(form, "exp_year", "expiry year")
        card = checkout_pb2.CardInput(
            # People type card numbers in groups; the digits are what the JSON endpoint expects.
            card_number="".join(_text(form, "card_number").replace("-", " ").split()),
            exp_month=_number(form, "exp_month", "expiry month"),
            exp_year=year + 2000 if 0 < year < 100 else year,
            cvc=_text(form, "cvc"),
        )
        message.card.CopyFrom(card)
    return message


def _form_state(form: Any, err: ApiError | None = None, message: str = "") -> FormState:
    method = form.get("payment_method") or "card"
    values = {name: str(form.get(name) or "")[:254] for name in _ECHOED}
    if err is None:
        return FormState(method=method, values=values, message=message)
    name = (err.param or "").rpartition(".")[2]
    if name in FORM_FIELDS:
        return FormState(method, values, "Please correct the highlighted field.", name, err.message)
    return FormState(method, values, err.message)


async def _page_again(request: Request, charge_id: str) -> checkout_pb2.CheckoutPage:
    message = checkout_service_pb2.GetCheckoutPageRequest(charge_id=charge_id)
    reply = await rpc(
        request, core_of(request).checkout.GetCheckoutPage, message, is_read=True, pin=charge_id
    )
    page: checkout_pb2.CheckoutPage = reply.response.page
    return page


async def pay_with_form(request: Request, charge_id: str) -> HTTPResponse:
    """POST /checkout/{id} from the no-JS form: 303 to the merchant on success, else the page again."""
    form: Any = posted_form(request)
    try:
        await admit_public(request)
        try:
            message = completion_from_form(charge_id, form)
            reply = await rpc(request, core_of(request).checkout.CompleteCheckout, message, pin=charge_id)
        except ApiError as err:
            if err.http_status not in (400, 404):  # not about this charge or its input
                raise
            view = checkout_view(await _page_again(request, charge_id))
            if not view.valid:
                return rendering.state_page(view)
            return rendering.checkout_page(view, _form_state(form, err), status=400)
        result: checkout_pb2.CheckoutResult = reply.response.result
        if result.success:
            return rendering.see_other(result.redirect_url)
        view = checkout_view(await _page_again(request, charge_id))
        sentence = decline_message(result.error_message)
        if view.valid:  # the charge is still payable (no processor reached): try again
            return rendering.checkout_page(view, _form_state(form, message=sentence))
        return rendering.state_page(view, view.state(message=sentence))
    except ApiError as err:
        return rendering.problem_page(err)


def blueprint() -> Blueprint:
    bp = Blueprint("checkout_pages")
    bp.add_route(pay_with_form, "/checkout/<charge_id>", methods=["POST"], name="pay_with_form")
    bp.add_route(assets.serve_asset, f"{assets.PREFIX}/<name>", methods=["GET"], name="asset")
    return bp
