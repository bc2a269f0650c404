"""POST /test_helpers/reset (DESIGN §10.5): every TEST object of the merchant goes, keys, webhook endpoints
and LIVE data stay, the TEST clock is back at real time, and the answer counts what went."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, authorized_charge, sign_up
from tests.e2e.developer_tools_support import live_key, open_session

pytestmark = pytest.mark.e2e
RESET = f"{API}/test_helpers/reset"


@pytest.fixture
def client(http: httpx.Client) -> httpx.Client:
    """The unthrottled gateway: this module makes many TEST requests a second as one merchant."""
    return http


CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"}


def test_reset_deletes_test_data_and_keeps_keys_endpoints_and_live(client: httpx.Client) -> None:
    merchant = sign_up(client)
    test = merchant.auth
    live = live_key(client, merchant)
    # LIVE objects (a charge, a customer, an endpoint) that must survive.
    live_charge = client.post(
        f"{API}/charges",
        json={"amount": 777, "currency": "usd", "return_url": "https://x.example/r"},
        headers=live,
    ).json()
    live_customer = client.post(f"{API}/customers", json={"email": "live@example.com"}, headers=live).json()
    # TEST objects of every kind the API makes easily.
    charge = authorized_charge(client, merchant)
    assert client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers=test).status_code == 200
    refund = client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 100}, headers=test)
    assert refund.status_code == 201, refund.text
    customer = client.post(f"{API}/customers", json={"email": "c@example.com"}, headers=test).json()
    method = client.post(
        f"{API}/customers/{customer['id']}/payment-methods",
        json={"type": "card", "card": CARD, "set_default": True},
        headers=test,
    )
    assert method.status_code == 201, method.text
    plan = client.post(f"{API}/plans", json={"name": "Gold"}, headers=test).json()
    price = client.post(
        f"{API}/plans/{plan['id']}/prices",
        json={"amount_cents": 2000, "currency": "usd", "interval": "monthly"},
        headers=test,
    ).json()
    subscription = client.post(
        f"{API}/subscriptions", json={"customer_id": customer["id"], "price_id": price["id"]}, headers=test
    )
    assert subscription.status_code == 201, subscription.text
    endpoint = client.post(
        f"{API}/webhooks", json={"url": "https://hooks.example/x", "events": ["*"]}, headers=test
    ).json()
    session = open_session(client, merchant)
    clock = client.get(f"{API}/test_helpers/clock", headers=test).json()["now"]
    advanced = client.post(f"{API}/test_helpers/clock/advance", json={"to": clock + 86400}, headers=test)
    assert advanced.status_code == 200, advanced.text

    reset = client.post(RESET, headers={**test, "Idempotency-Key": "reset-1"})
    assert reset.status_code == 200, reset.text
    body = reset.json()
    assert body["object"] == "test_reset"
    deleted = body["deleted"]
    assert deleted["charge"] >= 2  # the checkout charge and the subscription's invoice charge
    assert deleted["refund"] == 1 and deleted["customer"] == 1 and deleted["payment_method"] == 1
    assert deleted["plan"] == 1 and deleted["price"] == 1 and deleted["subscription"] == 1
    assert deleted["subscription_item"] == 1 and deleted["invoice"] >= 1 and deleted["event"] > 5
    assert deleted["balance_transaction"] >= 1

    # TEST: everything gone, the clock at real time, keys and endpoints and CLI sessions kept.
    assert_error(client.get(f"{API}/charges/{charge['id']}", headers=test), 404, "resource_not_found")
    for path in ("charges", "customers", "plans", "subscriptions", "invoices", "events"):
        listed = client.get(f"{API}/{path}", headers=test)
        assert listed.status_code == 200 and listed.json()["data"] == [], (path, listed.text)
    assert abs(client.get(f"{API}/test_helpers/clock", headers=test).json()["now"] - time.time()) <= 5
    assert [e["id"] for e in client.get(f"{API}/webhooks", headers=test).json()["data"]] == [endpoint["id"]]
    assert client.get(f"{API}/cli/sessions/{session['id']}/responses", headers=test).status_code == 200
    # The reset's own answer is replayed for its key; it was not deleted with the other TEST keys.
    replay = client.post(RESET, headers={**test, "Idempotency-Key": "reset-1"})
    assert replay.json() == body and replay.headers.get("Idempotent-Replayed") == "true"
    # LIVE: untouched.
    assert client.get(f"{API}/charges/{live_charge['id']}", headers=live).status_code == 200
    assert client.get(f"{API}/customers/{live_customer['id']}", headers=live).status_code == 200
    # The sandbox works again from scratch: a new customer with the same e-mail is fine.
    again = client.post(f"{API}/customers", json={"email": "c@example.com"}, headers=test)
    assert again.status_code == 201, again.text
    second_reset = client.post(RESET, headers=test)
    assert second_reset.status_code == 200, second_reset.text
    second = second_reset.json()
    assert second["deleted"]["customer"] == 1 and second["deleted"]["charge"] == 0


def test_reset_needs_a_test_secret_key(client: httpx.Client) -> None:
    merchant = sign_up(client)
    assert_error(client.post(RESET, headers=live_key(client, merchant)), 403, "authorization_error")
    assert_error(client.post(RESET), 401, "authentication_error")
    assert_error(client.post(RESET, json={"all": True}, headers=merchant.auth), 400, "invalid_request_error")
