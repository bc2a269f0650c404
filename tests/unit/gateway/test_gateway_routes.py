"""The route table: every operation answers under the three address styles (STYLE §3.5)."""

from __future__ import annotations

import pytest

from http_gateway.app import create_app
from http_gateway.config import Settings

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

API_ROUTES = {
    ("POST", "charges"),
    ("GET", "charges"),
    ("GET", "charges/<charge_id:str>"),
    ("POST", "charges/<charge_id:str>/capture"),
    ("POST", "charges/<charge_id:str>/refunds"),
    ("POST", "charges/<charge_id:str>/void"),
    ("POST", "test_helpers/charges/<charge_id:str>/dispute"),
    ("POST", "test_helpers/disputes/<dispute_id:str>/close"),
    ("GET", "test_helpers/clock"),
    ("POST", "test_helpers/clock/advance"),
    ("POST", "test_helpers/reset"),
    ("POST", "cli/sessions"),
    ("DELETE", "cli/sessions/<session_id:str>"),
    ("GET", "cli/sessions/<session_id:str>/stream"),
    ("POST", "cli/sessions/<session_id:str>/responses"),
    ("GET", "cli/sessions/<session_id:str>/responses"),
    ("POST", "keys"),
    ("GET", "keys"),
    ("DELETE", "keys/<key_id:str>"),
    ("POST", "webhooks"),
    ("GET", "webhooks"),
    ("GET", "webhooks/<endpoint_id:str>"),
    ("PATCH", "webhooks/<endpoint_id:str>"),
    ("DELETE", "webhooks/<endpoint_id:str>"),
    ("GET", "webhooks/<endpoint_id:str>/deliveries"),
    ("GET", "events"),
    ("GET", "events/<event_id:str>"),
    ("POST", "events/<event_id:str>/resend"),
    ("POST", "tax-rates"),
    ("GET", "tax-rates"),
    ("GET", "tax-rates/<tax_rate_id:str>"),
    ("PATCH", "tax-rates/<tax_rate_id:str>"),
    ("POST", "plans"),
    ("GET", "plans"),
    ("GET", "plans/<plan_id:str>"),
    ("POST", "plans/<plan_id:str>/prices"),
    ("GET", "plans/<plan_id:str>/prices"),
    ("GET", "prices/<price_id:str>"),
    ("PATCH", "prices/<price_id:str>"),
    ("POST", "customers"),
    ("GET", "customers"),
    ("GET", "customers/<customer_id:str>"),
    ("PATCH", "customers/<customer_id:str>"),
    ("POST", "customers/<customer_id:str>/payment-methods"),
    ("GET", "customers/<customer_id:str>/payment-methods"),
    ("DELETE", "customers/<customer_id:str>/payment-methods/<payment_method_id:str>"),
    ("POST", "customers/<customer_id:str>/balance-transactions"),
    ("GET", "customers/<customer_id:str>/balance-transactions"),
    ("POST", "subscriptions"),
    ("GET", "subscriptions"),
    ("GET", "subscriptions/<subscription_id:str>"),
    ("PATCH", "subscriptions/<subscription_id:str>"),
    ("POST", "subscriptions/<subscription_id:str>/cancel"),
    ("POST", "subscriptions/<subscription_id:str>/pause"),
    ("POST", "subscriptions/<subscription_id:str>/resume"),
    ("POST", "subscriptions/<subscription_id:str>/preview"),
    ("POST", "subscriptions/<subscription_id:str>/items"),
    ("GET", "subscriptions/<subscription_id:str>/items"),
    ("PATCH", "subscriptions/<subscription_id:str>/items/<item_id:str>"),
    ("DELETE", "subscriptions/<subscription_id:str>/items/<item_id:str>"),
    ("GET", "invoices"),
    ("GET", "invoices/<invoice_id:str>"),
    ("POST", "invoices/<invoice_id:str>/void"),
    ("POST", "portal-sessions"),
    ("GET", "balance"),
    ("GET", "balance-transactions"),
    ("GET", "payouts"),
    ("GET", "payouts/<payout_id:str>"),
}
MERCHANT_ROUTES = {
    ("POST", "merchants"),
    ("POST", "auth/token"),
    ("GET", "merchants/me"),
    ("PATCH", "merchants/me"),
    ("POST", "merchants/me/password"),
}
# The hosted checkout HTML pages (http_gateway/payments/pages): the no-JS form post and the page assets.
PAGE_ROUTES = {
    ("POST", "checkout/<charge_id:str>"),
    ("GET", "checkout-assets/<name:str>"),
    # The customer portal's pages (http_gateway/billing/pages) and their stylesheets.
    ("GET", "portal/<token:str>"),
    ("GET", "portal/<token:str>/payment-method"),
    ("POST", "portal/<token:str>/payment-method"),
    ("GET", "portal/<token:str>/subscriptions/<subscription_id:str>/cancel"),
    ("POST", "portal/<token:str>/subscriptions/<subscription_id:str>/cancel"),
    ("GET", "portal/<token:str>/invoices/<invoice_id:str>"),
    ("GET", "portal-assets/<name:str>"),
}
CHECKOUT_ROUTES = {
    ("GET", "checkout/<charge_id:str>"),
    ("POST", "checkout/<charge_id:str>/complete"),
    ("POST", "checkout/<charge_id:str>/cancel"),
}


@pytest.fixture(scope="module")
def routes() -> set[tuple[str, str]]:
    from sanic import Sanic

    Sanic.test_mode = True
    app = create_app(Settings(jwt_signing_key=KEY), name="route_table")
    return {(method, route.path) for route in app.router.routes for method in route.methods}


@pytest.mark.parametrize("prefix", ["api/v1/connect/", "connect/v1/", "v1/"])
def test_merchant_operations_under_every_address_style(routes, prefix):
    assert {(m, prefix + p) for m, p in API_ROUTES} <= routes


@pytest.mark.parametrize("prefix", ["api/v1/", "connect/v1/", "v1/"])
def test_signup_login_and_profile_under_every_version_prefix(routes, prefix):
    assert {(m, prefix + p) for m, p in MERCHANT_ROUTES} <= routes


@pytest.mark.parametrize("prefix", ["", "api/v1/"])
def test_hosted_checkout_and_its_json_api(routes, prefix):
    assert {(m, prefix + p) for m, p in CHECKOUT_ROUTES} <= routes


def test_health_metrics_and_nothing_unexpected(routes):
    assert ("GET", "healthz") in routes
    assert ("GET", "metrics") in routes
    assert ("GET", "openapi.json") in routes
    expected = (
        {(m, pre + p) for m, p in API_ROUTES for pre in ("api/v1/connect/", "connect/v1/", "v1/")}
        | {(m, pre + p) for m, p in MERCHANT_ROUTES for pre in ("api/v1/", "connect/v1/", "v1/")}
        | {(m, pre + p) for m, p in CHECKOUT_ROUTES for pre in ("", "api/v1/")}
        | PAGE_ROUTES
        | {("GET", "healthz"), ("GET", "metrics"), ("GET", "openapi.json")}
    )
    # The dashboard's pages live under dashboard/ (its own tests name them; see test below).
    pages = {(m, p) for m, p in routes if m in ("HEAD", "OPTIONS") or p.startswith("dashboard")}
    assert routes - pages == expected


DASHBOARD_ROUTES = {
    ("GET", "dashboard"),
    ("GET", "dashboard/sign-in"),
    ("POST", "dashboard/sign-in"),
    ("POST", "dashboard/sign-out"),
    ("POST", "dashboard/mode"),
    ("GET", "dashboard/assets/<name:str>"),
}


def test_the_dashboard_under_its_own_prefix(routes):
    assert routes >= DASHBOARD_ROUTES
