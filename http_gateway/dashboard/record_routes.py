"""The routes of the billing and money pages (record_pages.py, record_actions.py), added to the
dashboard blueprint by routes.py before its catch-all 404."""

from __future__ import annotations

from sanic import Blueprint

from http_gateway.dashboard import record_actions as act
from http_gateway.dashboard import record_pages as pages


def add(bp: Blueprint) -> None:
    get, post = ["GET"], ["POST"]
    bp.add_route(pages.customers, "/customers", methods=get, name="customers")
    bp.add_route(pages.customer, "/customers/<customer_id>", methods=get, name="customer")
    bp.add_route(act.adjust_credit, "/customers/<customer_id>/credit", methods=post, name="adjust_credit")
    bp.add_route(pages.subscriptions, "/subscriptions", methods=get, name="subscriptions")
    bp.add_route(pages.subscription, "/subscriptions/<subscription_id>", methods=get, name="subscription")
    cancel = "/subscriptions/<subscription_id>/cancel"
    bp.add_route(pages.subscription_cancel, cancel, methods=get, name="subscription_cancel")
    bp.add_route(act.cancel_subscription, cancel, methods=post, name="cancel_subscription")
    bp.add_route(pages.invoices, "/invoices", methods=get, name="invoices")
    bp.add_route(pages.invoice, "/invoices/<invoice_id>", methods=get, name="invoice")
    bp.add_route(pages.balance, "/balance", methods=get, name="balance")
    bp.add_route(pages.payouts, "/payouts", methods=get, name="payouts")
    bp.add_route(pages.webhooks, "/webhooks", methods=get, name="webhooks")
    bp.add_route(pages.webhook_endpoint, "/webhooks/<endpoint_id>", methods=get, name="webhook_endpoint")
    bp.add_route(pages.events, "/events", methods=get, name="events")
    bp.add_route(pages.event, "/events/<event_id>", methods=get, name="event")
    bp.add_route(act.resend_event, "/events/<event_id>/resend", methods=post, name="resend_event")
