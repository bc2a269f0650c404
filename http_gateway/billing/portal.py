"""Customer portal routes: `POST /portal-sessions` (secret key) and the portal's pages at
`{portal_url}/portal/{token}` (public: the token is the credential).

The pages decide nothing: the core resolves the token (an unknown or expired one is NOT_FOUND, shown as
the "expired" page), checks each form's anti-forgery token and every rule of the change. A form post
that succeeds is answered 303 to the portal's home, so a reload never posts twice.
"""

from __future__ import annotations

import re
from typing import Any

from connect.errors import DECLINE_CODES
from connect.v1 import common_pb2, customer_pb2, portal_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing.pages import portal_assets, portal_rendering
from http_gateway.billing.pages.portal_view import FORM_FIELDS, CardForm, PortalView, portal_view
from http_gateway.edge.errors import ApiError
from http_gateway.edge.forms import posted_form
from http_gateway.edge.validation import Field, check_string, validate_body
from http_gateway.pipeline.admission import (
    admit_api_key,
    admit_public,
    core_of,
    respond,
    rpc,
    validated_with_key,
)
from http_gateway.pipeline.idempotency import MAX_KEY_LENGTH, fingerprint

CREATE_FIELDS = (
    Field("customer_id", "str", required=True, aliases=("customer",)),
    Field("return_url", "str", required=True),
)
# Paths that carry a portal token; the access log shows them without it.
_TOKEN_IN_PATH = re.compile(r"^/portal/[^/]+")


def loggable_path(path: str) -> str:
    """The path for the access log: a portal token is a credential, so it never reaches a log line."""
    return _TOKEN_IN_PATH.sub("/portal/<token>", path)


# -- the merchant's API -----------------------------------------------------------------------------


async def create_portal_session(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, CREATE_FIELDS)
    )
    message = portal_service_pb2.CreatePortalSessionRequest(
        caller=caller.pb(),
        customer_id=body["customer_id"],
        return_url=body["return_url"],
        idempotency=idempotency,
    )
    reply = await rpc(request, core_of(request).portal.CreatePortalSession, message)
    return respond(reply, reply.response.session.object_json, status=201)


def blueprint() -> Blueprint:
    bp = Blueprint("portal_sessions", url_prefix="/portal-sessions")
    bp.add_route(create_portal_session, "", methods=["POST"], name="create_portal_session")
    return bp


# -- the customer's pages ---------------------------------------------------------------------------


def _problem(err: ApiError) -> HTTPResponse:
    """A failure that is not about this page's objects: the expired page, or "try again"."""
    if err.http_status == 404 and err.param == "token":
        return portal_rendering.expired_page()
    if err.http_status == 404:
        return portal_rendering.state_page(
            "not_found", "Not found", "This item is not part of your billing account.", 404
        )
    if err.http_status == 429:
        message = "Too many requests came from your network. Please wait a moment and try again."
    else:
        message = "We could not load your billing details right now. Please try again in a moment."
    response = portal_rendering.state_page("problem", "Something went wrong", message, err.http_status)
    response.headers.update({k: v for k, v in err.headers.items() if k == "Retry-After"})
    return response


async def _page(request: Request, token: str, *, after: str = "", only: str = "") -> PortalView:
    """The page data: a bounded number of subscription panels (those after `after`), or just `only`'s."""
    await admit_public(request)
    message = portal_service_pb2.ResolvePortalSessionRequest(
        token=token, subscriptions_after=after, subscription_id=only
    )
    reply = await rpc(request, core_of(request).portal.ResolvePortalSession, message, is_read=True)
    return portal_view(token, reply.response.page.view_json)


def _subscriptions_after(request: Request) -> str:
    """`?after=sub_…` of the "more subscriptions" link; anything else is ignored (a page, not an API)."""
    after = request.args.get("after") or ""
    return after if after.startswith("sub_") and len(after) <= 64 and after.isascii() else ""


def _text(form: Any, name: str) -> str:
    return check_string(form.get(name) or "", f"card.{name}").strip()


def _number(form: Any, name: str, label: str) -> int:
    text = _text(form, name)
    if not text:
        return 0
    if not text.isdigit() or len(text) > 9:
        raise ApiError.invalid(f"card.{name}", f"The {label} must be a number.")
    return int(text)


def card_from_form(form: Any) -> customer_pb2.VaultCardInput:
    """Syntax only (people type numbers in groups, years in two digits); the rules are the core's."""
    year = _number(form, "exp_year", "expiry year")
    return customer_pb2.VaultCardInput(
        number="".join(_text(form, "number").replace("-", " ").split()),
        exp_month=_number(form, "exp_month", "expiry month"),
        exp_year=year + 2000 if 0 < year < 100 else year,
        cvc=_text(form, "cvc"),
    )


def _card_form(form: Any, err: ApiError) -> CardForm:
    expiry = {name: str(form.get(name) or "")[:4] for name in ("exp_month", "exp_year")}
    field = (err.param or "").rpartition(".")[2]
    if err.param and err.param.startswith("card.") and field in FORM_FIELDS:
        return CardForm("Please correct the highlighted field.", field, err.message, **expiry)
    if err.code in DECLINE_CODES:  # the core's sentence for the code (one table, in the core)
        return CardForm(err.message, **expiry)
    return CardForm(err.message, **expiry)


def _submission(request: Request, form: Any) -> common_pb2.Idempotency:
    """The form's own key (one per rendered form) as the request's Idempotency-Key."""
    key = check_string(form.get("submission") or "", "submission").strip()[:MAX_KEY_LENGTH]
    if not key:
        return common_pb2.Idempotency()
    return common_pb2.Idempotency(key=key, fingerprint=fingerprint(request.path, request.body or b""))


def _form_token(form: Any) -> str:
    return check_string(form.get("anti_forgery_token") or "", "anti_forgery_token")


async def portal_home(request: Request, token: str) -> HTTPResponse:
    try:
        view = await _page(request, token, after=_subscriptions_after(request))
    except ApiError as err:
        return _problem(err)
    return portal_rendering.home_page(view, request.args.get("notice"))


async def payment_method_form(request: Request, token: str) -> HTTPResponse:
    try:
        view = await _page(request, token)
    except ApiError as err:
        return _problem(err)
    return portal_rendering.card_page(view)


async def update_payment_method(request: Request, token: str) -> HTTPResponse:
    form = posted_form(request)
    try:
        view = await _page(request, token)
        try:
            message = portal_service_pb2.UpdatePaymentMethodRequest(
                token=token,
                anti_forgery_token=_form_token(form),
                card=card_from_form(form),
                idempotency=_submission(request, form),
            )
            await rpc(request, core_of(request).portal.UpdatePaymentMethod, message)
        except ApiError as err:
            if err.http_status == 403:
                form_state = CardForm("This form has expired. Please enter your card again.")
                return portal_rendering.card_page(view, form_state, status=403)
            if err.http_status != 400:
                raise
            # A decline is a result, not an error (spec): the form again with its sentence, 200; a field
            # to correct is 400.
            declined = err.code in DECLINE_CODES
            return portal_rendering.card_page(view, _card_form(form, err), status=200 if declined else 400)
    except ApiError as err:
        return _problem(err)
    return portal_rendering.see_other(f"{view.base}?notice=card")


async def cancel_confirmation(request: Request, token: str, subscription_id: str) -> HTTPResponse:
    try:
        view = await _page(request, token, only=subscription_id)
    except ApiError as err:
        return _problem(err)
    subscription = view.subscription(subscription_id)
    if subscription is None:
        return portal_rendering.state_page(
            "not_found", "Not found", "This subscription is not part of your billing account.", 404, view
        )
    return portal_rendering.cancel_page(view, subscription)


async def cancel_subscription(request: Request, token: str, subscription_id: str) -> HTTPResponse:
    form = posted_form(request)
    try:
        view = await _page(request, token, only=subscription_id)
        subscription = view.subscription(subscription_id)
        try:
            message = portal_service_pb2.CancelAtPeriodEndRequest(
                token=token, anti_forgery_token=_form_token(form), subscription_id=subscription_id
            )
            await rpc(request, core_of(request).portal.CancelAtPeriodEnd, message)
        except ApiError as err:
            if subscription is None or err.http_status not in (400, 403):
                raise
            text = "This form has expired. Please confirm again." if err.http_status == 403 else err.message
            return portal_rendering.cancel_page(view, subscription, text, status=err.http_status)
    except ApiError as err:
        return _problem(err)
    return portal_rendering.see_other(f"{view.base}?notice=canceled")


async def portal_invoice(request: Request, token: str, invoice_id: str) -> HTTPResponse:
    try:
        await admit_public(request)
        message = portal_service_pb2.GetPortalInvoiceRequest(token=token, invoice_id=invoice_id)
        reply = await rpc(request, core_of(request).portal.GetPortalInvoice, message, is_read=True)
    except ApiError as err:
        return _problem(err)
    return portal_rendering.invoice_page(portal_view(token, reply.response.page.view_json))


def pages_blueprint() -> Blueprint:
    bp = Blueprint("portal_pages")
    bp.add_route(portal_home, "/portal/<token>", methods=["GET"], name="portal_home")
    card = "/portal/<token>/payment-method"
    bp.add_route(payment_method_form, card, methods=["GET"], name="portal_payment_method_form")
    bp.add_route(update_payment_method, card, methods=["POST"], name="portal_update_payment_method")
    cancel = "/portal/<token>/subscriptions/<subscription_id>/cancel"
    bp.add_route(cancel_confirmation, cancel, methods=["GET"], name="portal_cancel_confirmation")
    bp.add_route(cancel_subscription, cancel, methods=["POST"], name="portal_cancel_subscription")
    bp.add_route(
        portal_invoice, "/portal/<token>/invoices/<invoice_id>", methods=["GET"], name="portal_invoice"
    )
    bp.add_route(portal_assets.serve_asset, f"{portal_assets.PREFIX}/<name>", methods=["GET"], name="asset")
    return bp
