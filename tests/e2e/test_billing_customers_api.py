"""Customers through the gateway: every operation, the email filter and pagination, errors with their
param, tenant isolation, idempotent replay, the duplicate-email race, and the events' data.object."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx

from tests.e2e.api_client import API, Merchant, assert_error, sign_up

ADDRESS = {"line1": "1 Main St", "city": "Austin", "state": "TX", "postal_code": "78701", "country": "us"}


def new_email() -> str:
    return f"c{uuid.uuid4().hex[:12]}@example.com"


def create(client: httpx.Client, merchant: Merchant, **body: Any) -> httpx.Response:
    return client.post(f"{API}/customers", json={"email": new_email(), **body}, headers=merchant.auth)


def events_of(client: httpx.Client, merchant: Merchant, event_type: str) -> list[dict[str, Any]]:
    listed = client.get(f"{API}/events", params={"type": event_type, "limit": 100}, headers=merchant.auth)
    assert listed.status_code == 200, listed.text
    events: list[dict[str, Any]] = listed.json()["data"]
    return events


def test_create_get_update_and_the_events_carry_the_rest_object(client: httpx.Client) -> None:
    merchant = sign_up(client)
    created = create(client, merchant, name="Jenny Rosen", address=ADDRESS, metadata={"crm": "42"})
    assert created.status_code == 201, created.text
    customer = created.json()
    assert customer["id"].startswith("cus_") and len(customer["id"]) == 28
    assert customer["object"] == "customer" and customer["livemode"] is False
    assert customer["address"] == {**ADDRESS, "country": "US"}
    assert customer["default_payment_method"] is None and customer["metadata"] == {"crm": "42"}
    url = f"{API}/customers/{customer['id']}"
    assert client.get(url, headers=merchant.auth).json() == customer

    patched = client.patch(
        url,
        json={"name": "", "metadata": {"crm": "", "tier": "gold"}, "email": new_email()},
        headers=merchant.auth,
    )
    assert patched.status_code == 200, patched.text
    after = patched.json()
    assert (
        after["name"] is None
        and after["metadata"] == {"tier": "gold"}
        and after["email"] != customer["email"]
    )
    assert after["address"] == customer["address"]  # untouched
    got = client.get(url, headers=merchant.auth).json()
    assert got == after

    [created_event] = events_of(client, merchant, "customer.created")
    assert created_event["data"]["object"] == customer
    [updated_event] = events_of(client, merchant, "customer.updated")
    assert updated_event["data"]["object"] == got

    # A PATCH that changes nothing logs no event.
    same = client.patch(url, json={"name": ""}, headers=merchant.auth)
    assert same.status_code == 200 and same.json() == got
    assert len(events_of(client, merchant, "customer.updated")) == 1


def test_list_filters_by_email_paginates_and_counts(client: httpx.Client) -> None:
    merchant = sign_up(client)
    ids = [create(client, merchant).json()["id"] for _ in range(3)]
    wanted = create(client, merchant, email="Jenny.Rosen@Example.com").json()
    listed = client.get(f"{API}/customers", params={"limit": 2}, headers=merchant.auth).json()
    assert [c["id"] for c in listed["data"]] == [wanted["id"], ids[2]]
    assert listed["has_more"] is True and listed["total_count"] == 4
    rest = client.get(
        f"{API}/customers", params={"limit": 2, "starting_after": ids[2]}, headers=merchant.auth
    ).json()
    assert [c["id"] for c in rest["data"]] == [ids[1], ids[0]] and rest["has_more"] is False
    by_email = client.get(
        f"{API}/customers", params={"email": "jenny.rosen@example.COM"}, headers=merchant.auth
    )
    assert [c["id"] for c in by_email.json()["data"]] == [wanted["id"]] and by_email.json()[
        "total_count"
    ] == 1
    other = sign_up(client)
    assert client.get(f"{API}/customers", headers=other.auth).json()["total_count"] == 0
    foreign_cursor = client.get(f"{API}/customers", params={"starting_after": ids[0]}, headers=other.auth)
    assert_error(foreign_cursor, 400, "invalid_request_error", "parameter_invalid", "starting_after")
    assert_error(
        client.get(f"{API}/customers", params={"limit": 0}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "limit",
    )


def test_errors_name_their_param(client: httpx.Client) -> None:
    merchant = sign_up(client)
    post = f"{API}/customers"
    assert_error(
        client.post(post, json={}, headers=merchant.auth),
        400,
        "invalid_request_error",
        "parameter_missing",
        "email",
    )
    bad_email = client.post(post, json={"email": "not-an-email"}, headers=merchant.auth)
    assert_error(bad_email, 400, "invalid_request_error", "parameter_invalid", "email")
    bad_country = create(client, merchant, address={"country": "USA"})
    assert_error(bad_country, 400, "invalid_request_error", "parameter_invalid", "address.country")
    unknown_part = create(client, merchant, address={"street": "x"})
    assert_error(unknown_part, 400, "invalid_request_error", "parameter_invalid", "address.street")
    long_name = create(client, merchant, name="x" * 257)
    assert_error(long_name, 400, "invalid_request_error", "parameter_invalid", "name")
    customer = create(client, merchant).json()
    url = f"{API}/customers/{customer['id']}"
    unknown_pm = client.patch(url, json={"default_payment_method": "pm_" + "a" * 24}, headers=merchant.auth)
    assert_error(unknown_pm, 400, "invalid_request_error", "parameter_invalid", "default_payment_method")
    taken = create(client, merchant).json()["email"]
    clash = client.patch(url, json={"email": taken.upper()}, headers=merchant.auth)
    assert_error(clash, 400, "invalid_request_error", "parameter_invalid", "email")


def test_a_foreign_customer_answers_like_an_unknown_one(client: httpx.Client) -> None:
    owner, other = sign_up(client), sign_up(client)
    customer = create(client, owner).json()
    foreign = client.get(f"{API}/customers/{customer['id']}", headers=other.auth)
    unknown = client.get(f"{API}/customers/cus_{'x' * 24}", headers=other.auth)
    for response in (foreign, unknown, client.get(f"{API}/customers/nonsense", headers=other.auth)):
        assert_error(response, 404, "resource_not_found", "resource_missing", "id")
    patch = client.patch(f"{API}/customers/{customer['id']}", json={"name": "x"}, headers=other.auth)
    assert_error(patch, 404, "resource_not_found", "resource_missing", "id")
    # The same e-mail is free in another merchant's account.
    assert create(client, other, email=customer["email"]).status_code == 201


def test_an_idempotent_create_replays_the_same_customer(client: httpx.Client) -> None:
    merchant = sign_up(client)
    headers = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    body = {"email": new_email(), "name": "Once"}
    first = client.post(f"{API}/customers", json=body, headers=headers)
    again = client.post(f"{API}/customers", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    assert client.get(f"{API}/customers", headers=merchant.auth).json()["total_count"] == 1
    assert len(events_of(client, merchant, "customer.created")) == 1


def test_two_concurrent_creates_with_one_email_give_one_customer(client: httpx.Client) -> None:
    merchant = sign_up(client)
    email = new_email()

    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=str(client.base_url), timeout=15.0) as http:
            return list(
                await asyncio.gather(
                    *(
                        http.post(f"{API}/customers", json={"email": e}, headers=merchant.auth)
                        for e in (email, email.upper())
                    )
                )
            )

    responses = asyncio.run(race())
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201, 400], [r.text for r in responses]
    loser = next(r for r in responses if r.status_code == 400)
    assert_error(loser, 400, "invalid_request_error", "parameter_invalid", "email")
    listed = client.get(f"{API}/customers", params={"email": email}, headers=merchant.auth).json()
    assert listed["total_count"] == 1
