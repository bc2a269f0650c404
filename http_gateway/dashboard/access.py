"""Signed-in pages: the session from the cookie, checked with the core on every page (the token may
have been revoked by a password change), and the Caller every core call acts as.

A page handler is written as `async def page(request, signed: Signed, ...)` and wrapped by
`signed_in_page` (GET) or `signed_in_action` (POST: anti-forgery checked, the form read once).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from connect import errors
from connect.v1 import common_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.forms import ForgedRequest, check_csrf, read_form
from http_gateway.dashboard.navigation import BASE
from http_gateway.dashboard.sessions import DashboardSession, SessionStore
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.admission import admit_dashboard_token, settings_of

COOKIE = "pc_dashboard"
SIGN_IN = f"{BASE}/sign-in"
_ENVIRONMENTS = {"test": common_pb2.ENVIRONMENT_TEST, "live": common_pb2.ENVIRONMENT_LIVE}


@dataclass(frozen=True, slots=True)
class Signed:
    """A signed-in request: the session, its Caller for the core, and the form of a POST."""

    session: DashboardSession
    form: dict[str, str]

    @property
    def caller(self) -> common_pb2.Caller:
        env = _ENVIRONMENTS[self.session.environment]
        return common_pb2.Caller(merchant_id=self.session.merchant_id, environment=env)

    @property
    def merchant_id(self) -> str:
        return self.session.merchant_id


def store_of(request: Request) -> SessionStore:
    store: SessionStore | None = getattr(request.app.ctx, "dashboard_sessions", None)
    if store is None:
        namespace = settings_of(request).redis_namespace
        store = request.app.ctx.dashboard_sessions = SessionStore(request.app.ctx.redis, namespace)
    return store


def cookie_secure(request: Request) -> bool:
    """Secure under TLS: the gateway's own, a TLS proxy in front, or an https dashboard address."""
    settings = settings_of(request)
    return (
        settings.tls_enabled
        or settings.behind_tls_proxy
        or settings.dashboard_base_url.startswith("https://")
    )


def sign_in_redirect(request: Request) -> HTTPResponse:
    target = request.path if request.method == "GET" and request.path != SIGN_IN else BASE
    return rendering.see_other(f"{SIGN_IN}?next={quote(target, safe='/')}")


async def current_session(request: Request) -> DashboardSession | None:
    """The cookie's session if it still stands: unknown, idle, expired or revoked → None (and ended)."""
    store = store_of(request)
    session = await store.load(request.cookies.get(COOKIE) or "")
    if session is None:
        return None
    try:
        await admit_dashboard_token(request, session.token)
    except ApiError as err:
        if err.type != errors.AUTHENTICATION:
            raise
        await store.end(session.session_id)
        return None
    return session


def session_ended(request: Request) -> HTTPResponse:
    """A form posted without a live session: nothing was done (a 401 page that links to sign-in, rather
    than a redirect that would lose what the form said without saying so)."""
    return rendering.render(request, "session_ended.html", {"sign_in": SIGN_IN}, status=401)


Handler = Callable[..., Coroutine[Any, Any, HTTPResponse]]


def signed_in_page(handler: Handler) -> Handler:
    @functools.wraps(handler)
    async def page(request: Request, *args: Any, **kwargs: Any) -> HTTPResponse:
        session = await current_session(request)
        if session is None:
            return sign_in_redirect(request)
        try:
            return await handler(request, Signed(session, {}), *args, **kwargs)
        except ApiError as err:
            return problem_page(request, session, err)

    return page


def signed_in_action(handler: Handler) -> Handler:
    """POST: the session and its anti-forgery token first (without a session: the 401 page, nothing
    done); a core refusal becomes a flash message on the page the handler names through
    `ActionFailed`, else the problem page."""

    @functools.wraps(handler)
    async def action(request: Request, *args: Any, **kwargs: Any) -> HTTPResponse:
        session = await current_session(request)
        if session is None:
            return session_ended(request)
        form = read_form(request)
        try:
            check_csrf(request, form, session)
        except ForgedRequest:
            err = ApiError.invalid("csrf_token", "This form expired or came from elsewhere; try again.")
            return problem_page(request, session, err, status=403)
        try:
            return await handler(request, Signed(session, form), *args, **kwargs)
        except ActionFailed as failed:
            await store_of(request).flash(session, failed.message, "error")
            return rendering.see_other(failed.back_to)
        except ApiError as err:
            return problem_page(request, session, err)

    return action


class ActionFailed(Exception):
    """An action the core (or the form's syntax) refused: shown on `back_to` as an error message."""

    def __init__(self, message: str, back_to: str) -> None:
        super().__init__(message)
        self.message = message
        self.back_to = back_to


async def core_action(back_to: str, call: Awaitable[Any]) -> Any:
    """Runs a core call; its 4xx becomes `ActionFailed` with the core's own message."""
    try:
        return await call
    except ApiError as err:
        if err.http_status >= 500:
            raise
        raise ActionFailed(err.message, back_to) from None


def problem_page(
    request: Request, session: DashboardSession, err: ApiError, status: int | None = None
) -> HTTPResponse:
    code = status or err.http_status
    return rendering.render(
        request, "problem.html", {"message": err.message, "status": code}, session=session, status=code
    )


async def page_flash(request: Request, signed: Signed) -> dict[str, str] | None:
    return await store_of(request).take_flash(signed.session)
