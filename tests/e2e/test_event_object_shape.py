"""One shape per resource: every charge event's `data.object` is the REST answer for that charge at the
moment of the event, field by field (issue "Ready for billing" §1)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, create_charge, pay, sign_up

pytestmark = pytest.mark.e2e
DECLINED = {"card_number": "4000000000000002", "exp_month": 12, "exp_year": 2040, "cvc": "123"}


def rest_answer(client: httpx.Client, merchant: Merchant, charge_id: str) -> dict[str, Any]:
    response = client.get(f"{API}/charges/{charge_id}", headers=merchant.auth)
    assert response.status_code == 200, response.text
    return response.json()


def event_object(client: httpx.Client, merchant: Merchant, event_type: str, charge_id: str) -> dict[str, Any]:
    events = client.get(f"{API}/events", params={"type": event_type, "limit": 100}, headers=merchant.auth)
    assert events.status_code == 200, events.text
    matching = [e for e in events.json()["data"] if e["data"]["object"]["id"] == charge_id]
    assert len(matching) == 1, events.json()
    return matching[0]["data"]["object"]


def assert_same_object(event: dict[str, Any], rest: dict[str, Any]) -> None:
    assert sorted(event) == sorted(rest)
    for field in rest:
        assert event[field] == rest[field], field


def test_every_charge_event_carries_the_rest_answer_of_its_moment(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant, description="order 7", metadata={"order": "7"})
    assert_same_object(
        event_object(client, merchant, "charge.created", charge["id"]),
        rest_answer(client, merchant, charge["id"]),
    )
    assert "payment_method" not in charge  # fields of later stages appear only once they exist

    assert pay(client, charge["id"]).json()["success"]
    completed = rest_answer(client, merchant, charge["id"])
    assert completed["payment_method"] == "card" and "transaction_id" in completed
    assert_same_object(event_object(client, merchant, "charge.completed", charge["id"]), completed)

    client.post(f"{API}/charges/{charge['id']}/capture", headers=merchant.auth)
    refunded = client.post(
        f"{API}/charges/{charge['id']}/refunds",
        json={"amount": 2_000, "reason": "duplicate"},
        headers=merchant.auth,
    )
    assert refunded.status_code == 201, refunded.text
    after_refund = rest_answer(client, merchant, charge["id"])
    assert after_refund["refunds"][0] == refunded.json()
    assert_same_object(event_object(client, merchant, "charge.refunded", charge["id"]), after_refund)

    disputed = client.post(f"{API}/test_helpers/charges/{charge['id']}/dispute", headers=merchant.auth)
    assert disputed.status_code == 201, disputed.text
    after_dispute = rest_answer(client, merchant, charge["id"])
    assert after_dispute["dispute"] == disputed.json()
    assert_same_object(event_object(client, merchant, "charge.disputed", charge["id"]), after_dispute)

    declined = create_charge(client, merchant)
    assert pay(client, declined["id"], DECLINED).json()["success"] is False
    assert_same_object(
        event_object(client, merchant, "charge.failed", declined["id"]),
        rest_answer(client, merchant, declined["id"]),
    )


def test_the_list_shows_the_same_object_as_retrieve(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    assert pay(client, charge["id"]).json()["success"]
    listed = client.get(f"{API}/charges", headers=merchant.auth).json()["data"]
    assert listed == [rest_answer(client, merchant, charge["id"])]
