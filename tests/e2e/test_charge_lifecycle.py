"""The whole charge path through the real gateway and core: create → pay → capture → refund → void."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, authorized_charge, create_charge, pay, sign_up

pytestmark = pytest.mark.e2e


def test_create_retrieve_capture_refund(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(
        client, merchant, description="Order 42", metadata={"order": "42"}, customerEmail="buyer@example.com"
    )
    assert re.fullmatch(r"ch_[A-Za-z0-9]{32}", charge["id"])
    assert charge["object"] == "charge" and charge["status"] == "pending" and charge["livemode"] is False
    assert charge["checkout_url"] == f"{str(client.base_url).rstrip('/')}/checkout/{charge['id']}"
    assert charge["expires_at"] - charge["created"] == 86_400
    assert charge["metadata"] == {"order": "42"} and charge["customer_email"] == "buyer@example.com"
    assert charge["refunds"] == []

    paid = pay(client, charge["id"])
    assert paid.status_code == 200
    assert (
        paid.json()
        == {
            "success": True,
            "chargeId": charge["id"],
            "status": "authorized",
            "redirectUrl": "https://shop.example/ok",
            "testMode": True,
        }
        or paid.json()["success"] is True
    )

    captured = client.post(
        f"{API}/charges/{charge['id']}/capture", json={"amount": 500}, headers=merchant.auth
    )
    assert captured.status_code == 200, captured.text
    body = captured.json()
    assert (body["status"], body["amount"], body["fee"], body["net"]) == ("captured", 500, 45, 455)
    assert isinstance(body["captured_at"], int)

    refund = client.post(
        f"{API}/charges/{charge['id']}/refunds",
        json={"amount": 200, "reason": "customer_request"},
        headers=merchant.auth,
    )
    assert refund.status_code == 201, refund.text
    assert refund.json()["object"] == "refund" and refund.json()["amount"] == 200
    assert re.fullmatch(r"re_[A-Za-z0-9]{32}", refund.json()["id"])

    too_much = client.post(
        f"{API}/charges/{charge['id']}/refunds", json={"amount": 301}, headers=merchant.auth
    )
    assert_error(too_much, 400, "invalid_request_error", "refund_exceeds_charge", "amount")

    rest = client.post(f"{API}/charges/{charge['id']}/refunds", headers=merchant.auth)
    assert rest.status_code == 201 and rest.json()["amount"] == 300 and rest.json()["reason"] is None

    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["status"] == "refunded" and got["amount"] == 10_000 and got["amount_captured"] == 500
    assert [r["amount"] for r in got["refunds"]] == [200, 300]
    assert got["payment_method"] == "card"
    card = got["payment_method_details"]["card"]
    assert card["last4"] == "4242" and card["brand"] == "visa" and "number" not in card

    again = client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 1}, headers=merchant.auth)
    assert_error(again, 400, "invalid_request_error", "charge_already_refunded")


def test_capture_and_void_state_errors(client: httpx.Client) -> None:
    merchant = sign_up(client)
    pending = create_charge(client, merchant)
    assert_error(
        client.post(f"{API}/charges/{pending['id']}/capture", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )
    assert_error(
        client.post(f"{API}/charges/{pending['id']}/void", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )

    charge = authorized_charge(client, merchant, amount=1000)
    assert_error(
        client.post(f"{API}/charges/{charge['id']}/capture", json={"amount": 1001}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "amount",
    )
    assert_error(
        client.post(f"{API}/charges/{charge['id']}/refunds", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )
    voided = client.post(f"{API}/charges/{charge['id']}/void", headers=merchant.auth)
    assert voided.status_code == 200 and voided.json()["status"] == "voided"

    full = authorized_charge(client, merchant)
    assert (
        client.post(f"{API}/charges/{full['id']}/capture", headers=merchant.auth).json()["amount"] == 10_000
    )
    assert_error(
        client.post(f"{API}/charges/{full['id']}/capture", headers=merchant.auth),
        400,
        "invalid_request_error",
        "charge_already_captured",
    )


def test_other_merchants_and_environments_see_404(client: httpx.Client) -> None:
    owner = sign_up(client)
    stranger = sign_up(client)
    live = sign_up(client, environment="live")
    charge = create_charge(client, owner)
    unknown = client.get(f"{API}/charges/ch_{'x' * 32}", headers=owner.auth)
    foreign = client.get(f"{API}/charges/{charge['id']}", headers=stranger.auth)
    assert_error(unknown, 404, "resource_not_found")
    assert_error(foreign, 404, "resource_not_found")
    assert foreign.json()["error"]["message"].replace(charge["id"], "") == unknown.json()["error"][
        "message"
    ].replace(f"ch_{'x' * 32}", "")
    assert_error(
        client.post(f"{API}/charges/{charge['id']}/capture", headers=stranger.auth), 404, "resource_not_found"
    )
    live_charge = create_charge(client, live)
    assert live_charge["livemode"] is True


def test_list_filters_and_cursor_pagination(client: httpx.Client) -> None:
    merchant = sign_up(client)
    ids = [create_charge(client, merchant, amount=1000 + i)["id"] for i in range(5)]
    authorized_charge(client, merchant)
    page = client.get(
        f"{API}/charges", params={"limit": 2, "status": "pending"}, headers=merchant.auth
    ).json()
    assert page["object"] == "list" and page["url"] == f"{API}/charges"
    assert page["total_count"] == 5 and page["has_more"] is True
    assert [c["id"] for c in page["data"]] == ids[::-1][:2]
    seen = [c["id"] for c in page["data"]]
    while page["has_more"]:
        page = client.get(
            f"{API}/charges",
            params={"limit": 2, "status": "pending", "starting_after": seen[-1]},
            headers=merchant.auth,
        ).json()
        seen += [c["id"] for c in page["data"]]
    assert seen == ids[::-1]
    everything = client.get(f"{API}/charges", headers=merchant.auth).json()
    assert everything["total_count"] == 6
    created = everything["data"][0]["created"]
    none_after = client.get(f"{API}/charges", params={"created_after": created}, headers=merchant.auth).json()
    assert none_after["data"] == [] and none_after["total_count"] == 0
    assert_error(
        client.get(f"{API}/charges", params={"limit": 101}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "limit",
    )
    assert_error(
        client.get(f"{API}/charges", params={"starting_after": "ch_nope"}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "starting_after",
    )


def test_address_aliases_answer_alike(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    for prefix in ("/api/v1/connect", "/connect/v1", "/v1"):
        response = client.get(f"{prefix}/charges/{charge['id']}", headers=merchant.auth)
        assert response.status_code == 200 and response.json()["id"] == charge["id"]
