"""Jinja2 rendering of the portal pages, with the checkout pages' security headers.

Every page: no script at all, styles only from this origin, forms post only here (`form-action
'self'`; the way back to the merchant is a link, not a redirect), never framed, never cached, never
a Referer (the token is in the URL).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path

from sanic.response import HTTPResponse, html, redirect

from http_gateway.billing.pages.portal_assets import stylesheet_url, theme_url
from http_gateway.billing.pages.portal_view import (
    NOTICES,
    TEST_CARDS,
    CardForm,
    PortalView,
    day,
    status_label,
)
from http_gateway.hosted_pages import headers
from http_gateway.hosted_pages.branding import DEFAULT_BRAND
from http_gateway.hosted_pages.templating import page_environment

TEMPLATES = Path(__file__).resolve().parent / "templates"

_ENV = page_environment(
    TEMPLATES,
    globals={"stylesheet_url": stylesheet_url, "theme_url": theme_url, "test_cards": TEST_CARDS},
    filters={"day": day, "status": status_label},
)

CONTENT_SECURITY_POLICY = headers.content_security_policy()


def security_headers() -> dict[str, str]:
    return headers.security_headers()


def _respond(template: str, context: Mapping[str, object], status: int) -> HTTPResponse:
    body = _ENV.get_template(template).render(**context)
    return html(body, status=status, headers=security_headers())


def home_page(view: PortalView, notice: str | None = None) -> HTTPResponse:
    context = {"page": view, "brand": view.brand, "notice": NOTICES.get(notice or "", "")}
    return _respond("portal_home.html", context, 200)


def card_page(view: PortalView, form: CardForm | None = None, *, status: int = 200) -> HTTPResponse:
    # A fresh key per rendered form: posting this form twice is one request (docs/billing.md).
    submission = secrets.token_urlsafe(16)
    context = {"page": view, "brand": view.brand, "form": form or CardForm(), "submission": submission}
    return _respond("portal_card.html", context, status)


def cancel_page(
    view: PortalView, subscription: Mapping[str, object], message: str = "", status: int = 200
) -> HTTPResponse:
    context = {"page": view, "brand": view.brand, "sub": subscription, "message": message}
    return _respond("portal_cancel.html", context, status)


def invoice_page(view: PortalView) -> HTTPResponse:
    context = {"page": view, "brand": view.brand, "invoice": view.data["invoice"]}
    return _respond("portal_invoice.html", context, 200)


def state_page(
    kind: str, title: str, message: str, status: int, view: PortalView | None = None
) -> HTTPResponse:
    """Expired, not found, or a problem; with the merchant's branding when the session is known."""
    context = {
        "page": view,
        "brand": view.brand if view is not None else DEFAULT_BRAND,
        "kind": kind,
        "title": title,
        "message": message,
    }
    return _respond("portal_state.html", context, status)


def expired_page() -> HTTPResponse:
    return state_page(
        "expired",
        "This link has expired",
        "For your security, billing portal links work for one hour. Return to the merchant's site and "
        "open the billing portal again.",
        404,
    )


def see_other(url: str) -> HTTPResponse:
    """303 after a form post, so reloading the landing page never re-posts."""
    return redirect(url, status=303, headers=security_headers())
