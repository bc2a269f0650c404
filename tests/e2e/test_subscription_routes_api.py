"""Subscription, item, preview and invoice routes through the real gateway and core: each answer is the
published schema's object, under every address style, with idempotent replay and the refusals' params.

The billing rules themselves (amounts, periods, dunning) are pinned by the domain and integration
tests; this file checks the transport between the REST client and the use cases.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from http_gateway.operational.openapi import document
from tests.e2e.api_client import API, Merchant, assert_error, sign_up

pytestmark = pytest.mark.e2e

_COMPONENTS = document()["components"]
CARD = {
    "type": "card",
    "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"},
}


def valid(schema: str, body: Any) -> Any:
    validator = Draft202012Validator({"$ref": f"#/components/schemas/{schema}", "components": _COMPONENTS})
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, (schema, errors)
    return body


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def price(client: httpx.Client, merchant: Merchant, amount: int) -> str:
    plan = ok(client.post(f"{API}/plans", json={"name": "Pro"}, headers=merchant.auth), 201)
    body = {"amount_cents": amount, "currency": "usd", "interval": "monthly"}
    created = client.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=merchant.auth)
    return str(ok(created, 201)["id"])


def paying_customer(client: httpx.Client, merchant: Merchant) -> str:
    body = {"email": f"c{uuid.uuid4().hex[:12]}@example.com"}
    customer = ok(client.post(f"{API}/customers", json=body, headers=merchant.auth), 201)
    attached = client.post(
        f"{API}/customers/{customer['id']}/payment-methods", json=CARD, headers=merchant.auth
    )
    ok(attached, 201)
    return str(customer["id"])


def subscribe(client: httpx.Client, merchant: Merchant) -> dict[str, Any]:
    body = {"customer_id": paying_customer(client, merchant), "price_id": price(client, merchant, 3000)}
    created = client.post(f"{API}/subscriptions", json=body, headers=merchant.auth)
    return dict(valid("Subscription", ok(created, 201)))


def test_subscription_lifecycle_routes_answer_the_documented_objects(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant)
    url = f"{API}/subscriptions/{sub['id']}"
    assert sub["status"] == "ACTIVE" and sub["items"][0]["isBaseItem"] is True
    for prefix in ("/connect/v1", "/v1"):
        assert ok(client.get(f"{prefix}/subscriptions/{sub['id']}", headers=merchant.auth)) == sub

    listed = ok(client.get(f"{API}/subscriptions", params={"status": "ACTIVE"}, headers=merchant.auth))
    assert [s["id"] for s in valid("SubscriptionList", listed)["data"]] == [sub["id"]]

    [invoice] = valid("InvoiceList", ok(client.get(f"{API}/invoices", headers=merchant.auth)))["data"]
    assert invoice["subscription_id"] == sub["id"] and invoice["status"] == "PAID"
    assert ok(client.get(f"{API}/invoices/{invoice['id']}", headers=merchant.auth)) == invoice
    filtered = client.get(
        f"{API}/invoices", params={"subscription_id": sub["id"], "status": "VOID"}, headers=merchant.auth
    )
    assert ok(filtered)["data"] == []

    patched = ok(client.patch(url, json={"metadata": {"tier": "gold"}}, headers=merchant.auth))
    assert valid("Subscription", patched)["metadata"] == {"tier": "gold"}
    paused = valid("Subscription", ok(client.post(f"{url}/pause", headers=merchant.auth)))
    assert paused["status"] == "PAUSED" and paused["paused_at"] is not None
    assert_error(
        client.post(f"{url}/pause", headers=merchant.auth), 400, "invalid_request_error", "invalid_state"
    )
    canceled = valid(
        "Subscription", ok(client.post(f"{url}/cancel", json={"prorate": False}, headers=merchant.auth))
    )
    assert canceled["status"] == "CANCELED"


def test_cancel_at_period_end_keeps_it_active(client: httpx.Client) -> None:
    merchant = sign_up(client)
    url = f"{API}/subscriptions/{subscribe(client, merchant)['id']}"
    canceling = valid(
        "Subscription", ok(client.post(f"{url}/cancel?at_period_end=true", headers=merchant.auth))
    )
    assert canceling["cancel_at_period_end"] is True and canceling["status"] == "ACTIVE"
    canceled = valid(
        "Subscription", ok(client.post(f"{url}/cancel", json={"prorate": False}, headers=merchant.auth))
    )
    assert canceled["status"] == "CANCELED"


def test_resume_right_after_pause_answers_the_subscription(client: httpx.Client) -> None:
    merchant = sign_up(client)
    url = f"{API}/subscriptions/{subscribe(client, merchant)['id']}"
    ok(client.post(f"{url}/pause", headers=merchant.auth))
    resumed = valid("Subscription", ok(client.post(f"{url}/resume", headers=merchant.auth)))
    assert resumed["status"] == "ACTIVE"


def test_item_routes_and_the_preview(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant)
    seat = price(client, merchant, 1000)
    items_url = f"{API}/subscriptions/{sub['id']}/items"

    preview = client.post(
        f"{API}/subscriptions/{sub['id']}/preview",
        json={"add_item": {"price_id": seat, "quantity": 2, "proration_behavior": "charge_immediately"}},
        headers=merchant.auth,
    )
    shown = valid("SubscriptionPreview", ok(preview))
    assert shown["due_now_cents"] == shown["total_cents"] > 0
    unchanged = valid("SubscriptionItemList", ok(client.get(items_url, headers=merchant.auth)))
    assert unchanged["data"] == sub["items"] and unchanged["total_count"] == 1  # nothing changed

    added = client.post(items_url, json={"priceId": seat, "quantity": 2}, headers=merchant.auth)
    item = valid("SubscriptionItem", ok(added, 201))
    assert (item["priceId"], item["quantity"], item["prorationBehavior"]) == (seat, 2, "defer_to_next_cycle")
    changed = ok(client.patch(f"{items_url}/{item['id']}", json={"quantity": 3}, headers=merchant.auth))
    assert valid("SubscriptionItem", changed)["quantity"] == 3
    removed = ok(client.delete(f"{items_url}/{item['id']}?immediate=true", headers=merchant.auth))
    assert valid("SubscriptionItem", removed)["status"] == "removed"

    listed = valid("SubscriptionItemList", ok(client.get(items_url, headers=merchant.auth)))
    assert [i["id"] for i in listed["data"]] == [sub["items"][0]["id"], item["id"]]
    # The removed item is still listed, and counted (both fit on the first page).
    assert listed["has_more"] is False and listed["total_count"] == 2
    base = sub["items"][0]["id"]
    refused = client.delete(f"{items_url}/{base}", headers=merchant.auth)
    assert_error(refused, 400, "invalid_request_error", "invalid_state")


def assert_replays(
    client: httpx.Client,
    merchant: Merchant,
    url: str,
    body: dict[str, Any],
    other: dict[str, Any],
    status: int,
) -> None:
    """DESIGN §6: the same key and body get the first answer back, marked; another body is a 409."""
    headers = {**merchant.auth, "Idempotency-Key": f"key-{uuid.uuid4().hex}"}
    first = client.post(url, json=body, headers=headers)
    assert first.status_code == status and "Idempotent-Replayed" not in first.headers
    again = client.post(url, json=body, headers=headers)
    assert again.status_code == status and again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert_error(client.post(url, json=other, headers=headers), 409, "idempotency_error")


def test_creates_replay_under_their_idempotency_key(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}/items"
    assert_replays(client, merchant, url, {"priceId": seat}, {"priceId": seat, "quantity": 5}, 201)
    assert len(ok(client.get(url, headers=merchant.auth))["data"]) == 2  # the base and one seat


def test_a_preview_replays_under_its_idempotency_key(client: httpx.Client) -> None:
    """Every POST — a preview too, though it changes nothing: the retry gets the first answer."""
    merchant = sign_up(client)
    sub = subscribe(client, merchant)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}/preview"
    body = {"add_item": {"priceId": seat, "quantity": 2, "prorationBehavior": "charge_immediately"}}
    assert_replays(client, merchant, url, body, {"add_item": {"priceId": seat, "quantity": 3}}, 200)


def test_refusals_name_their_param(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant)
    url = f"{API}/subscriptions/{sub['id']}"
    cases = [
        (
            client.post(f"{API}/subscriptions", json={"price_id": "x"}, headers=merchant.auth),
            "parameter_missing",
            "customer_id",
        ),
        (
            client.patch(url, json={"proration_behavior": "later"}, headers=merchant.auth),
            "parameter_invalid",
            "proration_behavior",
        ),
        (
            client.post(f"{url}/items", json={"priceId": "x", "quantity": 0}, headers=merchant.auth),
            "parameter_invalid",
            "quantity",
        ),
        (client.post(f"{url}/preview", json={}, headers=merchant.auth), "parameter_missing", "price_id"),
        (
            client.post(f"{url}/cancel?at_period_end=yes", headers=merchant.auth),
            "parameter_invalid",
            "at_period_end",
        ),
        (client.get(f"{API}/invoices?status=LATE", headers=merchant.auth), "parameter_invalid", "status"),
    ]
    for response, code, param in cases:
        assert_error(response, 400, "invalid_request_error", code, param)
    unknown_price = client.post(f"{url}/items", json={"priceId": "price_" + "x" * 24}, headers=merchant.auth)
    assert unknown_price.status_code == 404 and unknown_price.json()["error"]["param"] == "priceId"
    other = sign_up(client)
    assert_error(client.get(url, headers=other.auth), 404, "resource_not_found")
