"""Voiding an invoice and recovering a PAST_DUE subscription, through the real gateway and core (DESIGN §9):
`POST /invoices/{id}/void` for DRAFT or OPEN only, with its event and idempotent replay; and a new
default payment method retrying the open invoice at once."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

OK_CARD = "4242424242424242"
DUNNING_CARD = "4000000000000341"  # attaches fine, every later charge declines (DESIGN §9)

JSON = dict[str, Any]


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """A gateway without the per-merchant rate limit: each test sends many requests as one merchant."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as http:
        yield http


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def card_body(number: str, **extra: Any) -> JSON:
    return {
        "type": "card",
        "card": {"number": number, "exp_month": 12, "exp_year": 2099, "cvc": "123"},
        **extra,
    }


def attach(client: httpx.Client, merchant: Merchant, customer_id: str, number: str, **extra: Any) -> JSON:
    url = f"{API}/customers/{customer_id}/payment-methods"
    return dict(ok(client.post(url, json=card_body(number, **extra), headers=merchant.auth), 201))


def subscription_with(client: httpx.Client, merchant: Merchant, number: str) -> tuple[str, JSON]:
    """A new customer whose first (so default) card is `number`, subscribed to a weekly 30.00 price."""
    plan = ok(client.post(f"{API}/plans", json={"name": "Pro"}, headers=merchant.auth), 201)
    body = {"amount_cents": 3000, "currency": "usd", "interval": "weekly"}
    price = ok(client.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=merchant.auth), 201)
    email = f"c{uuid.uuid4().hex[:12]}@example.com"
    customer = ok(client.post(f"{API}/customers", json={"email": email}, headers=merchant.auth), 201)
    attach(client, merchant, customer["id"], number)
    body = {"customer_id": customer["id"], "price_id": price["id"]}
    sub = ok(client.post(f"{API}/subscriptions", json=body, headers=merchant.auth), 201)
    return str(customer["id"]), dict(sub)


def get(client: httpx.Client, merchant: Merchant, path: str) -> JSON:
    return dict(ok(client.get(f"{API}/{path}", headers=merchant.auth)))


def events_of(client: httpx.Client, merchant: Merchant, event_type: str) -> list[JSON]:
    listed = client.get(f"{API}/events", params={"type": event_type, "limit": 100}, headers=merchant.auth)
    return list(ok(listed)["data"])


def past_due(client: httpx.Client) -> tuple[Merchant, str, JSON, JSON]:
    """A merchant with a PAST_DUE subscription (the dunning card) and its OPEN first invoice."""
    merchant = sign_up(client)
    customer_id, sub = subscription_with(client, merchant, DUNNING_CARD)
    assert sub["status"] == "PAST_DUE"
    owed = get(client, merchant, f"invoices/{sub['latest_invoice']}")
    assert owed["status"] == "OPEN" and owed["attempt_count"] == 1
    return merchant, customer_id, sub, owed


def test_voiding_the_open_invoice_of_a_past_due_subscription_makes_it_active_again(
    client: httpx.Client,
) -> None:
    merchant, _, sub, owed = past_due(client)
    voided = ok(client.post(f"{API}/invoices/{owed['id']}/void", headers=merchant.auth))
    assert voided["id"] == owed["id"] and voided["object"] == "invoice"
    assert voided["status"] == "VOID" and voided["paid_at"] is None
    assert voided["next_attempt_at"] is None  # never retried again
    assert voided["total_cents"] == owed["total_cents"] and voided["lines"] == owed["lines"]
    assert get(client, merchant, f"invoices/{owed['id']}") == voided
    assert get(client, merchant, f"subscriptions/{sub['id']}")["status"] == "ACTIVE"
    [event] = events_of(client, merchant, "invoice.voided")
    assert event["type"] == "invoice.voided" and event["data"]["object"] == voided
    # The declined attempt stays what it was: one failed charge, nothing captured.
    failed = get(client, merchant, f"charges/{owed['charge']}")
    assert failed["status"] == "failed" and failed["invoice"] == owed["id"]
    # VOID is final: a second void (another key) is a move the state does not allow.
    again = client.post(f"{API}/invoices/{owed['id']}/void", headers=merchant.auth)
    assert_error(again, 400, "invalid_request_error", "invalid_state")


def test_a_paid_invoice_cannot_be_voided(client: httpx.Client) -> None:
    merchant = sign_up(client)
    _, sub = subscription_with(client, merchant, OK_CARD)
    paid = get(client, merchant, f"invoices/{sub['latest_invoice']}")
    assert paid["status"] == "PAID"
    refused = client.post(f"{API}/invoices/{paid['id']}/void", headers=merchant.auth)
    assert_error(refused, 400, "invalid_request_error", "invalid_state")
    assert get(client, merchant, f"invoices/{paid['id']}") == paid
    assert events_of(client, merchant, "invoice.voided") == []


def test_another_merchants_or_an_unknown_invoice_is_not_found(client: httpx.Client) -> None:
    owner, _, sub, owed = past_due(client)
    other = sign_up(client)
    for invoice_id in (owed["id"], "si_" + "0" * 32, "nope"):
        answer = client.post(f"{API}/invoices/{invoice_id}/void", headers=other.auth)
        assert_error(answer, 404, "resource_not_found", "resource_missing")
    assert get(client, owner, f"invoices/{owed['id']}") == owed
    assert get(client, owner, f"subscriptions/{sub['id']}")["status"] == "PAST_DUE"


def test_a_replayed_void_answers_the_same_and_voids_once(client: httpx.Client) -> None:
    merchant, _, _, owed = past_due(client)
    headers = {**merchant.auth, "Idempotency-Key": f"void-{uuid.uuid4().hex}"}
    first = client.post(f"{API}/invoices/{owed['id']}/void", headers=headers)
    # Through another address style: the key belongs to the merchant, not to the path spelling.
    again = client.post(f"/v1/invoices/{owed['id']}/void", headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again.json()["status"] == "VOID"
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert len(events_of(client, merchant, "invoice.voided")) == 1


def test_attaching_a_good_card_as_default_retries_the_open_invoice_at_once(client: httpx.Client) -> None:
    merchant, customer_id, sub, owed = past_due(client)
    good = attach(client, merchant, customer_id, OK_CARD, set_default=True)
    paid = get(client, merchant, f"invoices/{owed['id']}")
    assert paid["status"] == "PAID" and paid["attempt_count"] == 2 and paid["next_attempt_at"] is None
    captured = get(client, merchant, f"charges/{paid['charge']}")
    assert captured["status"] == "captured" and captured["amount"] == owed["total_cents"]
    assert captured["id"] != owed["charge"]
    assert get(client, merchant, f"customers/{customer_id}")["default_payment_method"] == good["id"]
    assert get(client, merchant, f"subscriptions/{sub['id']}")["status"] == "ACTIVE"
    [event] = events_of(client, merchant, "invoice.paid")
    assert event["data"]["object"]["id"] == owed["id"]


def test_setting_a_good_card_as_default_retries_the_open_invoice_at_once(client: httpx.Client) -> None:
    merchant, customer_id, sub, owed = past_due(client)
    good = attach(client, merchant, customer_id, OK_CARD)  # not the default yet: nothing retried
    assert get(client, merchant, f"invoices/{owed['id']}")["status"] == "OPEN"
    body = {"default_payment_method": good["id"]}
    ok(client.patch(f"{API}/customers/{customer_id}", json=body, headers=merchant.auth))
    assert get(client, merchant, f"invoices/{owed['id']}")["status"] == "PAID"
    assert get(client, merchant, f"subscriptions/{sub['id']}")["status"] == "ACTIVE"
