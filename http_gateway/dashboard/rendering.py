"""Dashboard pages through the hosted-pages kit: the layout's data, filters, and the headers (no
script at all, forms post only here, never framed or cached)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sanic import Request
from sanic.response import HTTPResponse, html, redirect

from http_gateway.dashboard.forms import CSRF_FIELD, KEY_FIELD, new_key
from http_gateway.dashboard.money import format_amount
from http_gateway.dashboard.navigation import BASE, NAV
from http_gateway.dashboard.sessions import DashboardSession
from http_gateway.hosted_pages import headers
from http_gateway.hosted_pages.assets import StaticAssets
from http_gateway.hosted_pages.templating import page_environment

TEMPLATES = Path(__file__).resolve().parent / "templates"
ASSETS = StaticAssets(f"{BASE}/assets", Path(__file__).resolve().parent / "static")


def when(unix: int | None) -> str:
    """`25 Nov 2026, 14:03 UTC`; empty for an unset time."""
    if not unix:
        return ""
    moment = datetime.fromtimestamp(unix, UTC)
    return f"{moment.day} {moment:%b %Y, %H:%M} UTC"


def enum_label(name: str, prefix: str) -> str:
    """`CHARGE_STATUS_PARTIALLY_REFUNDED` → `partially refunded`."""
    return name.removeprefix(prefix).replace("_", " ").lower()


_ENV = page_environment(
    TEMPLATES,
    globals={
        "asset_url": ASSETS.url,
        "nav": NAV,
        "base": BASE,
        "new_key": new_key,
        "csrf_field": CSRF_FIELD,
        "key_field": KEY_FIELD,
    },
    filters={"money": format_amount, "when": when},
)


def security_headers() -> dict[str, str]:
    return headers.security_headers()


def render(
    request: Request,
    template: str,
    context: Mapping[str, Any],
    *,
    session: DashboardSession | None = None,
    flash: Mapping[str, str] | None = None,
    status: int = 200,
) -> HTTPResponse:
    """A page; with a session, the signed-in layout (nav, Test mode switch, sign-out) is shown."""
    body = _ENV.get_template(template).render(
        request_path=request.path, session=session, flash=flash, **context
    )
    return html(body, status=status, headers=security_headers())


def see_other(url: str) -> HTTPResponse:
    """303 after a form post, so reloading the landing page never re-posts."""
    return redirect(url, status=303, headers=security_headers())
