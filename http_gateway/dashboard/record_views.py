"""pb2 resources → the dicts the billing and money templates read: the core's own rendering
(`object_json`, the API's object), parsed here because a template reads its fields (the REST routes
never parse it). The settings and developers pages read the merchant's and API keys' typed fields."""

from __future__ import annotations

import json
from typing import Any

from connect.v1 import merchant_pb2, webhook_pb2

JSON = dict[str, Any]


def rendered(message: Any) -> JSON:
    """The object as the core rendered it for the API (`object_json`)."""
    view: JSON = json.loads(message.object_json)
    return view


def event_view(event: webhook_pb2.Event) -> JSON:
    return rendered(event)


def endpoint_view(endpoint: webhook_pb2.WebhookEndpoint) -> JSON:
    """The endpoint as the API shows it (id, url, events, description, status, created)."""
    return rendered(endpoint)


def delivery_view(delivery: webhook_pb2.WebhookDelivery) -> JSON:
    """The delivery as the API shows it, with its attempts."""
    return rendered(delivery)


def payout_settings_view(merchant: merchant_pb2.Merchant) -> JSON:
    """The schedule (daily when never set) and the account's last four digits, as the API shows them."""
    view = rendered(merchant)
    return {"payout_schedule": view["payout_schedule"], "payout_account_last4": view["payout_account_last4"]}
