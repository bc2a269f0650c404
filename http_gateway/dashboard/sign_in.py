"""Sign-in, sign-out and the Test mode switch.

Sign-in uses the core's login (IssueToken, with the client's address so the login throttle counts per
address) and keeps the token in a server-side session. The sign-in form carries its own double-submit
token (a SameSite=Strict cookie), so another site cannot sign a browser in to its own account.
"""

from __future__ import annotations

import hmac
import secrets

from connect.v1 import merchant_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.access import (
    COOKIE,
    SIGN_IN,
    Signed,
    cookie_secure,
    current_session,
    signed_in_action,
    store_of,
)
from http_gateway.dashboard.forms import ForgedRequest, check_origin, read_form
from http_gateway.dashboard.navigation import BASE
from http_gateway.dashboard.sessions import LIVE, TEST
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.admission import admit_public, client_address, core_of, rpc, settings_of
from http_gateway.pipeline.auth import verify_dashboard_token

SIGN_IN_COOKIE = "pc_dashboard_signin"
_FIELD = "sign_in_token"


def _safe_next(value: str | None) -> str:
    """Only a dashboard path: never an open redirect."""
    if value and value.startswith(BASE) and "//" not in value and "\\" not in value:
        return value
    return BASE


def _sign_in_page(
    request: Request, *, next_url: str, email: str = "", message: str = "", status: int = 200
) -> HTTPResponse:
    token = secrets.token_urlsafe(24)
    context = {
        "email": email,
        "message": message,
        "sign_in_token": token,
        "next": _safe_next(next_url),
        "signed_out": request.args.get("signed_out") == "1",
    }
    response = rendering.render(request, "sign_in.html", context, status=status)
    response.add_cookie(
        SIGN_IN_COOKIE,
        token,
        path=BASE,
        httponly=True,
        samesite="Strict",
        secure=cookie_secure(request),
        max_age=3600,
    )
    return response


async def sign_in_form(request: Request) -> HTTPResponse:
    if await current_session(request) is not None:
        return rendering.see_other(_safe_next(request.args.get("next")))
    return _sign_in_page(request, next_url=request.args.get("next") or BASE)


async def sign_in(request: Request) -> HTTPResponse:
    form = read_form(request)
    email = form.get("email", "").strip()[:254]
    next_url = _safe_next(form.get("next"))
    expected = request.cookies.get(SIGN_IN_COOKIE) or ""
    sent = form.get(_FIELD, "")
    try:
        check_origin(request)
        if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
            raise ForgedRequest("sign-in token")
    except ForgedRequest:
        message = "Your sign-in form expired. Please sign in again."
        return _sign_in_page(request, next_url=next_url, email=email, message=message, status=403)
    try:
        await admit_public(request)
        message = merchant_service_pb2.IssueTokenRequest(
            email=email, password=form.get("password", ""), client_address=client_address(request)
        )
        reply = await rpc(request, core_of(request).merchants.IssueToken, message)
    except ApiError as err:
        if err.http_status >= 500:
            raise
        status = err.http_status
        return _sign_in_page(request, next_url=next_url, email=email, message=err.message, status=status)
    token = reply.response.access_token
    merchant_id = verify_dashboard_token(token, settings_of(request).jwt_signing_key)
    session = await store_of(request).create(merchant_id, token, reply.response.expires_in)
    response = rendering.see_other(next_url)
    response.add_cookie(
        COOKIE,
        session.session_id,
        path=BASE,
        httponly=True,
        samesite="Strict",
        secure=cookie_secure(request),
    )
    response.delete_cookie(SIGN_IN_COOKIE, path=BASE)
    return response


@signed_in_action
async def sign_out(request: Request, signed: Signed) -> HTTPResponse:
    await store_of(request).end(signed.session.session_id)
    response = rendering.see_other(f"{SIGN_IN}?signed_out=1")
    response.delete_cookie(COOKIE, path=BASE)
    return response


@signed_in_action
async def switch_mode(request: Request, signed: Signed) -> HTTPResponse:
    """The Test mode switch: one button that flips the environment every page is scoped to."""
    target = LIVE if signed.session.test_mode else TEST
    await store_of(request).switch_environment(signed.session, target)
    return rendering.see_other(_safe_next(signed.form.get("next")))
