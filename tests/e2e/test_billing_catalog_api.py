"""Plans and prices through the gateway: create, get, list with pagination, a price's `active` switch and
its immutability, the price rules with their codes and params, tenant isolation and idempotent replay."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up

MONTHLY = {"amount_cents": 2000, "currency": "usd", "interval": "monthly", "interval_count": 1}


def new_plan(client: httpx.Client, merchant: Merchant, **body: Any) -> dict[str, Any]:
    created = client.post(f"{API}/plans", json={"name": "Pro", **body}, headers=merchant.auth)
    assert created.status_code == 201, created.text
    plan: dict[str, Any] = created.json()
    return plan


def create_price(client: httpx.Client, merchant: Merchant, plan_id: str, **body: Any) -> httpx.Response:
    return client.post(f"{API}/plans/{plan_id}/prices", json={**MONTHLY, **body}, headers=merchant.auth)


def test_plan_and_price_objects(client: httpx.Client) -> None:
    merchant = sign_up(client)
    plan = new_plan(client, merchant, description="Everything", metadata={"tier": "2"})
    assert plan["id"].startswith("plan_") and len(plan["id"]) == 29
    assert plan == {
        "id": plan["id"],
        "object": "plan",
        "name": "Pro",
        "description": "Everything",
        "active": True,
        "metadata": {"tier": "2"},
        "created": plan["created"],
        "livemode": False,
    }
    assert client.get(f"{API}/plans/{plan['id']}", headers=merchant.auth).json() == plan

    created = create_price(client, merchant, plan["id"], currency="EUR", trial_period_days=14)
    assert created.status_code == 201, created.text
    price = created.json()
    assert price["id"].startswith("price_") and len(price["id"]) == 30
    assert price == {
        "id": price["id"],
        "object": "price",
        "plan": plan["id"],
        "amount_cents": 2000,
        "currency": "eur",
        "interval": "monthly",
        "interval_count": 1,
        "trial_period_days": 14,
        "active": True,
        "metadata": {},
        "created": price["created"],
        "livemode": False,
    }
    assert client.get(f"{API}/prices/{price['id']}", headers=merchant.auth).json() == price
    # interval_count defaults to 1; trial_period_days is null when not given.
    plain = create_price(client, merchant, plan["id"], interval="yearly", interval_count=None).json()
    assert plain["interval_count"] == 1 and plain["trial_period_days"] is None


def test_a_price_changes_only_active(client: httpx.Client) -> None:
    merchant = sign_up(client)
    plan = new_plan(client, merchant)
    price = create_price(client, merchant, plan["id"]).json()
    url = f"{API}/prices/{price['id']}"
    off = client.patch(url, json={"active": False}, headers=merchant.auth)
    assert off.status_code == 200, off.text
    assert off.json() == {**price, "active": False}
    assert client.get(url, headers=merchant.auth).json()["active"] is False
    for field, value in [
        ("amount_cents", 5000),
        ("currency", "eur"),
        ("interval", "yearly"),
        ("interval_count", 2),
        ("trial_period_days", 3),
        ("plan", plan["id"]),
    ]:
        refused = client.patch(url, json={"active": True, field: value}, headers=merchant.auth)
        assert_error(refused, 400, "invalid_request_error", "parameter_invalid", field)
    assert_error(
        client.patch(url, json={"nickname": "x"}, headers=merchant.auth),
        400, "invalid_request_error", "parameter_invalid", "nickname",
    )  # fmt: skip
    assert client.get(url, headers=merchant.auth).json() == {**price, "active": False}


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        ({"amount_cents": 49}, "amount_too_small", "amount_cents"),
        ({"currency": "xyz"}, "currency_unsupported", "currency"),
        ({"interval": "hourly"}, "parameter_invalid", "interval"),
        ({"interval": "monthly", "interval_count": 13}, "parameter_invalid", "interval_count"),
        ({"interval": "yearly", "interval_count": 2}, "parameter_invalid", "interval_count"),
        ({"interval": "weekly", "interval_count": 53}, "parameter_invalid", "interval_count"),
        ({"interval": "daily", "interval_count": 366}, "parameter_invalid", "interval_count"),
        ({"interval_count": 0}, "parameter_invalid", "interval_count"),
        ({"trial_period_days": 731}, "parameter_invalid", "trial_period_days"),
        ({"trial_period_days": -1}, "parameter_invalid", "trial_period_days"),
        ({"amount_cents": "2000"}, "parameter_invalid", "amount_cents"),
        ({"unit_amount": 2000}, "parameter_invalid", "unit_amount"),
    ],
)
def test_price_rules(client: httpx.Client, body: dict[str, Any], code: str, param: str) -> None:
    merchant = sign_up(client)
    plan = new_plan(client, merchant)
    assert_error(
        create_price(client, merchant, plan["id"], **body), 400, "invalid_request_error", code, param
    )
    listed = client.get(f"{API}/plans/{plan['id']}/prices", headers=merchant.auth).json()
    assert listed["data"] == []


def test_plan_errors(client: httpx.Client) -> None:
    merchant = sign_up(client)
    missing = client.post(f"{API}/plans", json={"description": "x"}, headers=merchant.auth)
    assert_error(missing, 400, "invalid_request_error", "parameter_missing", "name")
    empty = client.post(f"{API}/plans", json={"name": "  "}, headers=merchant.auth)
    assert_error(empty, 400, "invalid_request_error", "parameter_invalid", "name")
    unknown = client.post(f"{API}/plans", json={"name": "Pro", "amount": 5}, headers=merchant.auth)
    assert_error(unknown, 400, "invalid_request_error", "parameter_invalid", "amount")


def live_key_of(client: httpx.Client, merchant: Merchant) -> dict[str, str]:
    """The same merchant's secret key of the live environment."""
    key = client.post(f"{API}/keys", json={"name": "live", "environment": "live"}, headers=merchant.jwt)
    assert key.status_code == 201, key.text
    return {"Authorization": f"Bearer {key.json()['secret_key']}"}


def test_lists_paginate_newest_first(client: httpx.Client) -> None:
    merchant, stranger = sign_up(client), sign_up(client)
    new_plan(client, stranger)
    plans = [new_plan(client, merchant, name=f"P{i}")["id"] for i in range(3)]
    page = client.get(f"{API}/plans", params={"limit": 2}, headers=merchant.auth).json()
    assert [p["id"] for p in page["data"]] == plans[::-1][:2] and page["has_more"] is True
    # total_count counts every plan of the caller's environment, not the page.
    assert page["total_count"] == 3
    rest = client.get(f"{API}/plans", params={"starting_after": plans[1]}, headers=merchant.auth).json()
    assert [p["id"] for p in rest["data"]] == [plans[0]] and rest["has_more"] is False
    assert rest["total_count"] == 3

    prices = [create_price(client, merchant, plans[0], amount_cents=100 + i).json()["id"] for i in range(3)]
    other_plan_price = create_price(client, merchant, plans[1]).json()["id"]
    url = f"{API}/plans/{plans[0]}/prices"
    page = client.get(url, params={"limit": 2}, headers=merchant.auth).json()
    assert page["url"] == url and page["object"] == "list"
    assert [p["id"] for p in page["data"]] == prices[::-1][:2] and page["has_more"] is True
    assert page["total_count"] == 3
    rest = client.get(url, params={"limit": 2, "starting_after": prices[1]}, headers=merchant.auth).json()
    assert [p["id"] for p in rest["data"]] == [prices[0]] and rest["has_more"] is False
    assert rest["total_count"] == 3
    # Another plan's prices count for that plan only.
    other_plan = client.get(f"{API}/plans/{plans[1]}/prices", headers=merchant.auth).json()
    assert [p["id"] for p in other_plan["data"]] == [other_plan_price] and other_plan["total_count"] == 1
    assert client.get(f"{API}/plans/{plans[2]}/prices", headers=merchant.auth).json()["total_count"] == 0
    # Another merchant's plans, and the same merchant's live environment, are not counted.
    assert client.get(f"{API}/plans", headers=stranger.auth).json()["total_count"] == 1
    live = client.get(f"{API}/plans", headers=live_key_of(client, merchant)).json()
    assert live["data"] == [] and live["total_count"] == 0
    # A cursor must be a price of this plan.
    foreign_cursor = client.get(url, params={"starting_after": other_plan_price}, headers=merchant.auth)
    assert_error(foreign_cursor, 400, "invalid_request_error", "parameter_invalid", "starting_after")


def test_another_tenants_plan_and_price_are_404_like_unknown_ones(client: httpx.Client) -> None:
    owner, stranger = sign_up(client), sign_up(client)
    live = sign_up(client, environment="live")
    plan = new_plan(client, owner)
    price = create_price(client, owner, plan["id"]).json()
    unknown_plan = assert_error(
        client.get(f"{API}/plans/plan_{'x' * 24}", headers=owner.auth), 404, "resource_not_found", param="id"
    )
    unknown_price = assert_error(
        client.get(f"{API}/prices/price_{'x' * 24}", headers=owner.auth),
        404,
        "resource_not_found",
        param="id",
    )
    for other in (stranger, live):
        for response, like in [
            (client.get(f"{API}/plans/{plan['id']}", headers=other.auth), unknown_plan),
            (client.get(f"{API}/plans/{plan['id']}/prices", headers=other.auth), unknown_plan),
            (create_price(client, other, plan["id"]), unknown_plan),
            (client.get(f"{API}/prices/{price['id']}", headers=other.auth), unknown_price),
            (
                client.patch(f"{API}/prices/{price['id']}", json={"active": False}, headers=other.auth),
                unknown_price,
            ),
        ]:
            assert_error(response, 404, "resource_not_found", like["code"], "id")
        assert client.get(f"{API}/plans", headers=other.auth).json()["data"] == []
    assert client.get(f"{API}/prices/{price['id']}", headers=owner.auth).json()["active"] is True
    assert len(client.get(f"{API}/plans/{plan['id']}/prices", headers=owner.auth).json()["data"]) == 1


def test_idempotent_replay_creates_once(client: httpx.Client) -> None:
    merchant = sign_up(client)
    plan_headers = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    first = client.post(f"{API}/plans", json={"name": "Pro"}, headers=plan_headers)
    again = client.post(f"{API}/plans", json={"name": "Pro"}, headers=plan_headers)
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    plan_id = first.json()["id"]
    price_headers = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    url = f"{API}/plans/{plan_id}/prices"
    one = client.post(url, json=MONTHLY, headers=price_headers)
    two = client.post(url, json=MONTHLY, headers=price_headers)
    assert one.status_code == two.status_code == 201 and two.json() == one.json()
    changed = client.post(url, json={**MONTHLY, "amount_cents": 3000}, headers=price_headers)
    assert_error(changed, 409, "idempotency_error")
    assert len(client.get(f"{API}/plans", headers=merchant.auth).json()["data"]) == 1
    assert len(client.get(url, headers=merchant.auth).json()["data"]) == 1


def test_all_three_address_styles(client: httpx.Client) -> None:
    merchant = sign_up(client)
    for prefix in ("/api/v1/connect", "/connect/v1", "/v1"):
        plan = client.post(f"{prefix}/plans", json={"name": "Basic"}, headers=merchant.auth)
        assert plan.status_code == 201, (prefix, plan.text)
        price = client.post(f"{prefix}/plans/{plan.json()['id']}/prices", json=MONTHLY, headers=merchant.auth)
        assert price.status_code == 201, (prefix, price.text)
        got = client.get(f"{prefix}/prices/{price.json()['id']}", headers=merchant.auth)
        assert got.status_code == 200 and got.json() == price.json()
