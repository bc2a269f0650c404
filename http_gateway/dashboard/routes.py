"""Every dashboard route (Blueprint). Adding a page: a module with its handlers, a line here, its
template, and its nav entry in navigation.py (docs/dashboard.md)."""

from __future__ import annotations

from sanic import Blueprint

from http_gateway.dashboard import developers, home, payments, record_routes, settings, sign_in
from http_gateway.dashboard.navigation import BASE
from http_gateway.dashboard.rendering import ASSETS


def blueprint() -> Blueprint:
    bp = Blueprint("dashboard", url_prefix=BASE)
    get, post = ["GET"], ["POST"]
    bp.add_route(sign_in.sign_in_form, "/sign-in", methods=get, name="sign_in_form")
    bp.add_route(sign_in.sign_in, "/sign-in", methods=post, name="sign_in")
    bp.add_route(sign_in.sign_out, "/sign-out", methods=post, name="sign_out")
    bp.add_route(sign_in.switch_mode, "/mode", methods=post, name="switch_mode")
    bp.add_route(ASSETS.serve, "/assets/<name>", methods=get, name="asset")
    bp.add_route(home.home, "", methods=get, name="home", strict_slashes=False)
    bp.add_route(payments.payments, "/payments", methods=get, name="payments")
    bp.add_route(payments.charge, "/payments/<charge_id>", methods=get, name="charge")
    bp.add_route(payments.capture, "/payments/<charge_id>/capture", methods=post, name="capture")
    bp.add_route(payments.refund, "/payments/<charge_id>/refund", methods=post, name="refund")
    bp.add_route(payments.void, "/payments/<charge_id>/void", methods=post, name="void")
    bp.add_route(developers.developers, "/developers", methods=get, name="developers")
    bp.add_route(developers.create_key, "/developers/keys", methods=post, name="create_key")
    bp.add_route(developers.revoke_key, "/developers/keys/<key_id>/revoke", methods=post, name="revoke_key")
    bp.add_route(settings.settings, "/settings", methods=get, name="settings")
    bp.add_route(settings.update_profile, "/settings/profile", methods=post, name="update_profile")
    bp.add_route(
        settings.update_payout_account, "/settings/payout-account", methods=post, name="payout_account"
    )
    bp.add_route(settings.advance_clock, "/settings/clock", methods=post, name="advance_clock")
    bp.add_route(settings.reset_test_data, "/settings/reset-test-data", methods=post, name="reset_test_data")
    record_routes.add(bp)  # customers, subscriptions, invoices, balance, payouts, webhooks, events
    bp.add_route(home.not_found, "/<rest:path>", methods=get, name="not_found")
    return bp
