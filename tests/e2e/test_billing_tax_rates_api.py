"""Tax rates through the gateway: create, list with pagination, get, patch; the exact percentage and its
errors, unknown fields, tenant and environment isolation, idempotent replay, and the three address styles."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up

CALIFORNIA = {
    "percentage": "8.25",
    "display_name": "Sales tax",
    "inclusive": False,
    "jurisdiction": "California",
    "country": "us",
    "state": "ca",
}


def create(client: httpx.Client, merchant: Merchant, **body: Any) -> httpx.Response:
    return client.post(f"{API}/tax-rates", json={**CALIFORNIA, **body}, headers=merchant.auth)


def test_create_get_list_and_patch(client: httpx.Client) -> None:
    merchant = sign_up(client)
    created = create(client, merchant, metadata={"erp": "7"})
    assert created.status_code == 201, created.text
    rate = created.json()
    assert rate["id"].startswith("txr_") and len(rate["id"]) == 28
    assert rate == {
        "id": rate["id"],
        "object": "tax_rate",
        "percentage": "8.25",
        "display_name": "Sales tax",
        "jurisdiction": "California",
        "inclusive": False,
        "country": "US",
        "state": "CA",
        "active": True,
        "metadata": {"erp": "7"},
        "created": rate["created"],
        "livemode": False,
    }
    url = f"{API}/tax-rates/{rate['id']}"
    assert client.get(url, headers=merchant.auth).json() == rate

    patched = client.patch(url, json={"display_name": "CA sales tax", "active": False}, headers=merchant.auth)
    assert patched.status_code == 200, patched.text
    assert patched.json() == {**rate, "display_name": "CA sales tax", "active": False}
    assert client.get(url, headers=merchant.auth).json() == patched.json()
    # Fields that are not named stay as they are.
    reactivated = client.patch(url, json={"active": True}, headers=merchant.auth).json()
    assert reactivated == {**rate, "display_name": "CA sales tax"}


def test_list_is_newest_first_paginates_and_counts(client: httpx.Client) -> None:
    merchant, stranger = sign_up(client), sign_up(client)
    create(client, stranger)
    ids = [create(client, merchant, percentage=p).json()["id"] for p in ("1", "2.5", "99.9999")]
    first = client.get(f"{API}/tax-rates", params={"limit": 2}, headers=merchant.auth)
    assert first.status_code == 200, first.text
    page = first.json()
    assert page["object"] == "list" and page["url"] == f"{API}/tax-rates"
    assert [r["id"] for r in page["data"]] == ids[::-1][:2] and page["has_more"] is True
    assert [r["percentage"] for r in page["data"]] == ["99.9999", "2.5"]
    # total_count counts every rate of the caller's environment, not the page.
    assert page["total_count"] == 3
    rest = client.get(
        f"{API}/tax-rates", params={"limit": 2, "starting_after": ids[1]}, headers=merchant.auth
    ).json()
    assert [r["id"] for r in rest["data"]] == [ids[0]] and rest["has_more"] is False
    assert rest["total_count"] == 3
    # An inactive rate is still one of the caller's rates.
    client.patch(f"{API}/tax-rates/{ids[0]}", json={"active": False}, headers=merchant.auth)
    assert client.get(f"{API}/tax-rates", headers=merchant.auth).json()["total_count"] == 3
    # Another merchant's rates, and the same merchant's live environment, are not counted.
    assert client.get(f"{API}/tax-rates", headers=stranger.auth).json()["total_count"] == 1
    live_key = client.post(f"{API}/keys", json={"name": "live", "environment": "live"}, headers=merchant.jwt)
    assert live_key.status_code == 201, live_key.text
    live_auth = {"Authorization": f"Bearer {live_key.json()['secret_key']}"}
    live = client.get(f"{API}/tax-rates", headers=live_auth).json()
    assert live["data"] == [] and live["total_count"] == 0
    assert_error(
        client.get(f"{API}/tax-rates", params={"limit": 0}, headers=merchant.auth),
        400, "invalid_request_error", "parameter_invalid", "limit",
    )  # fmt: skip


@pytest.mark.parametrize("percentage", ["100", "-1", "8.25001", "abc", "1e1", "", 8.25, 8])
def test_a_bad_percentage_is_400_on_percentage(client: httpx.Client, percentage: Any) -> None:
    merchant = sign_up(client)
    assert_error(
        create(client, merchant, percentage=percentage), 400, "invalid_request_error", param="percentage"
    )


def test_validation_errors_name_their_param(client: httpx.Client) -> None:
    merchant = sign_up(client)
    missing = client.post(
        f"{API}/tax-rates", json={"percentage": "5", "inclusive": True}, headers=merchant.auth
    )
    assert_error(missing, 400, "invalid_request_error", "parameter_missing", "display_name")
    assert_error(
        create(client, merchant, country="USA"), 400, "invalid_request_error", "parameter_invalid", "country"
    )
    assert_error(
        create(client, merchant, rate="5"), 400, "invalid_request_error", "parameter_invalid", "rate"
    )
    rate = create(client, merchant).json()
    # Only display_name and active change: the percentage of an existing rate is an unknown parameter.
    frozen = client.patch(f"{API}/tax-rates/{rate['id']}", json={"percentage": "9"}, headers=merchant.auth)
    assert_error(frozen, 400, "invalid_request_error", "parameter_invalid", "percentage")
    assert client.get(f"{API}/tax-rates/{rate['id']}", headers=merchant.auth).json()["percentage"] == "8.25"


def test_another_tenants_or_environments_rate_is_404_like_an_unknown_one(client: httpx.Client) -> None:
    owner, stranger = sign_up(client), sign_up(client)
    live = sign_up(client, environment="live")
    rate = create(client, owner).json()
    unknown = client.get(f"{API}/tax-rates/txr_{'x' * 24}", headers=owner.auth)
    error = assert_error(unknown, 404, "resource_not_found", param="id")
    for other in (stranger, live):
        foreign = client.get(f"{API}/tax-rates/{rate['id']}", headers=other.auth)
        same = assert_error(foreign, 404, "resource_not_found", error["code"], "id")
        assert same["message"] == error["message"].replace(f"txr_{'x' * 24}", rate["id"])
        patch = client.patch(f"{API}/tax-rates/{rate['id']}", json={"active": False}, headers=other.auth)
        assert_error(patch, 404, "resource_not_found", error["code"], "id")
        listed = client.get(f"{API}/tax-rates", headers=other.auth).json()
        assert rate["id"] not in [r["id"] for r in listed["data"]]
        cursor = client.get(f"{API}/tax-rates", params={"starting_after": rate["id"]}, headers=other.auth)
        assert_error(cursor, 400, "invalid_request_error", "parameter_invalid", "starting_after")
    assert client.get(f"{API}/tax-rates/{rate['id']}", headers=owner.auth).json()["active"] is True


def test_idempotent_replay_creates_once(client: httpx.Client) -> None:
    merchant = sign_up(client)
    headers = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    first = client.post(f"{API}/tax-rates", json=CALIFORNIA, headers=headers)
    again = client.post(f"{API}/tax-rates", json=CALIFORNIA, headers=headers)
    assert first.status_code == again.status_code == 201, again.text
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    other = client.post(f"{API}/tax-rates", json={**CALIFORNIA, "percentage": "9"}, headers=headers)
    assert_error(other, 409, "idempotency_error")
    listed = client.get(f"{API}/tax-rates", headers=merchant.auth).json()
    assert [r["id"] for r in listed["data"]] == [first.json()["id"]]


def test_all_three_address_styles_answer_alike(client: httpx.Client) -> None:
    merchant = sign_up(client)
    made = []
    for prefix in ("/api/v1/connect", "/connect/v1", "/v1"):
        created = client.post(f"{prefix}/tax-rates", json=CALIFORNIA, headers=merchant.auth)
        assert created.status_code == 201, (prefix, created.text)
        made.append(created.json()["id"])
        got = client.get(f"{prefix}/tax-rates/{made[0]}", headers=merchant.auth)
        assert got.status_code == 200 and got.json()["id"] == made[0]
        assert client.get(f"{prefix}/tax-rates", headers=merchant.auth).json()["data"][0]["id"] == made[-1]
    assert len(set(made)) == 3
