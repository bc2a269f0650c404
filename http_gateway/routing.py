"""How every context's route blueprints are mounted under the three address styles (STYLE §3.5)."""

from __future__ import annotations

from sanic import Blueprint, Sanic

from http_gateway.billing import customers, invoices, plans, portal, subscriptions, tax_rates
from http_gateway.dashboard import routes as dashboard_routes
from http_gateway.developer_tools import cli_sessions, sandbox_reset
from http_gateway.ledger import balance, payouts
from http_gateway.merchants import accounts, api_keys
from http_gateway.operational import health, openapi_document
from http_gateway.payments import charges, checkout, disputes
from http_gateway.sandbox import clock
from http_gateway.webhooks import endpoints, events

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
        api_keys.blueprint(),
        disputes.blueprint(),
        clock.blueprint(),
        tax_rates.blueprint(),
        plans.plans_blueprint(),
        plans.prices_blueprint(),
        endpoints.blueprint(),
        events.blueprint(),
        customers.blueprint(),
        subscriptions.blueprint(),
        invoices.blueprint(),
        portal.blueprint(),
        balance.blueprint(),
        payouts.blueprint(),
        cli_sessions.blueprint(),
        sandbox_reset.blueprint(),
    )


def mount_routes(app: Sanic) -> None:
    """Register every route; blueprint instances are made once per app and shared by the address styles
    (Sanic copies a blueprint per group, and refuses two different blueprints with one name)."""
    api = api_blueprints()
    merchant_bp = accounts.blueprint()
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
    # The customer portal's pages at {portal_url}/portal/{token} (public: the token is the credential).
    app.blueprint(portal.pages_blueprint())
    # The merchant dashboard at {dashboard_url}/dashboard (DESIGN §10.7, docs/dashboard.md).
    app.blueprint(dashboard_routes.blueprint())
    app.blueprint(health.blueprint())
    app.blueprint(openapi_document.blueprint())  # GET /openapi.json, the REST contract
