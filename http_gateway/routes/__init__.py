"""Route blueprints and how they are mounted under the three address styles (STYLE §3.5)."""

from __future__ import annotations

from sanic import Blueprint, Sanic

from http_gateway.routes import (
    charges,
    checkout,
    events,
    health,
    keys,
    merchants,
    openapi_document,
    test_helpers,
    webhooks,
)

# (name, version_prefix, url_prefix): /api/v1/connect/…, /connect/v1/…, /v1/… answer identically.
API_STYLES: tuple[tuple[str, str, str | None], ...] = (
    ("api", "/api/v", "/connect"),
    ("connect", "/connect/v", None),
    ("short", "/v", None),
)


def api_blueprints() -> tuple[Blueprint, ...]:
    """Merchant operations (API key or dashboard JWT)."""
    return (
        charges.blueprint(),
        keys.blueprint(),
        test_helpers.blueprint(),
        webhooks.blueprint(),
        events.blueprint(),
    )


def mount_routes(app: Sanic) -> None:
    """Register every route; blueprint instances are made once per app and shared by the address styles
    (Sanic copies a blueprint per group, and refuses two different blueprints with one name)."""
    api = api_blueprints()
    merchant_bp = merchants.blueprint()
    for name, version_prefix, url_prefix in API_STYLES:
        app.blueprint(
            Blueprint.group(
                *api, version=1, version_prefix=version_prefix, url_prefix=url_prefix, name_prefix=name
            )
        )
        # Sign-up, login and profile sit beside /connect: /api/v1/merchants, /connect/v1/…, /v1/….
        app.blueprint(
            Blueprint.group(merchant_bp, version=1, version_prefix=version_prefix, name_prefix=name)
        )
    # The hosted checkout lives at {checkout_url}/checkout/{id}; its JSON API also under /api/v1/checkout/….
    checkout_bp = checkout.blueprint()
    app.blueprint(Blueprint.group(checkout_bp, name_prefix="hosted"))
    app.blueprint(Blueprint.group(checkout_bp, version=1, version_prefix="/api/v", name_prefix="api"))
    app.blueprint(health.blueprint())
    app.blueprint(openapi_document.blueprint())  # GET /openapi.json, the REST contract
