"""Every dashboard route (Blueprint). Adding a page: a module with its handlers, a line here, its
template, and its nav entry in navigation.py (docs/dashboard.md)."""

from __future__ import annotations

from sanic import Blueprint

from http_gateway.dashboard import home, record_routes, sign_in
from http_gateway.dashboard.navigation import BASE
from http_gateway.dashboard.rendering import ASSETS


def blueprint() -> Blueprint:
    bp = Blueprint("dashboard", url_prefix=BASE)
    bp.add_route(sign_in.sign_in_form, "/sign-in", methods=["GET"], name="sign_in_form")
    bp.add_route(sign_in.sign_in, "/sign-in", methods=["POST"], name="sign_in")
    bp.add_route(sign_in.sign_out, "/sign-out", methods=["POST"], name="sign_out")
    bp.add_route(sign_in.switch_mode, "/mode", methods=["POST"], name="switch_mode")
    bp.add_route(ASSETS.serve, "/assets/<name>", methods=["GET"], name="asset")
    bp.add_route(home.home, "", methods=["GET"], name="home", strict_slashes=False)
    record_routes.add(bp)  # customers, subscriptions, invoices, balance, payouts, webhooks, events
    bp.add_route(home.not_found, "/<rest:path>", methods=["GET"], name="not_found")
    return bp
