"""Jinja2 rendering of the checkout pages and the security headers every page carries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from sanic.response import HTTPResponse, html, redirect

from http_gateway.edge.errors import ApiError
from http_gateway.hosted_pages import headers
from http_gateway.hosted_pages.branding import DEFAULT_BRAND
from http_gateway.hosted_pages.templating import page_environment
from http_gateway.payments.pages.assets import asset_url, theme_url
from http_gateway.payments.pages.view import CheckoutView, FormState, StateView

TEMPLATES = Path(__file__).resolve().parent / "templates"

_ENV = page_environment(TEMPLATES, globals={"asset_url": asset_url, "theme_url": theme_url})


def content_security_policy(form_origins: Iterable[str] = ()) -> str:
    """The page's own script only; form posts may only go here and redirect to the merchant."""
    return headers.content_security_policy(scripts=True, form_origins=form_origins)


def security_headers(form_origins: Iterable[str] = ()) -> dict[str, str]:
    return headers.security_headers(scripts=True, form_origins=form_origins, vary_accept=True)


def _respond(
    template: str, context: Mapping[str, object], status: int, origins: Iterable[str]
) -> HTTPResponse:
    body = _ENV.get_template(template).render(**context)
    return html(body, status=status, headers=security_headers(origins))


def checkout_page(view: CheckoutView, form: FormState | None = None, *, status: int = 200) -> HTTPResponse:
    """The payment form of a valid charge; `form` carries what a failed no-JS submit re-shows."""
    context = {"page": view, "form": form or FormState(method=view.methods[0]), "brand": view.brand}
    return _respond("checkout.html", context, status, view.form_origins())


def state_page(view: CheckoutView, state: StateView | None = None) -> HTTPResponse:
    """Why this charge cannot be paid; 404 for an unknown or malformed id, 200 for the other states."""
    state = state or view.state()
    status = 404 if not view.found else 200
    context = {"page": view, "state": state, "brand": view.brand if view.found else DEFAULT_BRAND}
    return _respond("state.html", context, status, view.form_origins())


def problem_page(err: ApiError) -> HTTPResponse:
    """The page for a request that failed before there was page data (rate limit, core unavailable)."""
    if err.http_status == 429:
        message = "Too many requests came from your network. Please wait a moment and try again."
    else:
        message = "We could not load this checkout right now. Please try again in a moment."
    state = StateView("problem", "Something went wrong", message)
    response = _respond(
        "state.html", {"page": None, "state": state, "brand": DEFAULT_BRAND}, err.http_status, ()
    )
    response.headers.update({k: v for k, v in err.headers.items() if k == "Retry-After"})
    return response


def see_other(url: str, form_origins: Iterable[str] = ()) -> HTTPResponse:
    """303 after a form post, so reloading the landing page never re-posts."""
    return redirect(url, status=303, headers=security_headers(form_origins))
