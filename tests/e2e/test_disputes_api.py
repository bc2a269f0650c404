"""Sandbox disputes through the gateway (DESIGN §4): open, the disputed state, close won or lost."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, authorized_charge, create_charge, sign_up

pytestmark = pytest.mark.e2e
HELPERS = f"{API}/test_helpers"


def captured(client: httpx.Client, merchant: object, amount: int = 10_000) -> dict:
    charge = authorized_charge(client, merchant, amount=amount)  # type: ignore[arg-type]
    client.post(f"{API}/charges/{charge['id']}/capture", headers=merchant.auth)  # type: ignore[attr-defined]
    return charge


def test_dispute_won_restores_the_charge(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = captured(client, merchant)
    client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 1000}, headers=merchant.auth)
    opened = client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=merchant.auth)
    assert opened.status_code == 201, opened.text
    dispute = opened.json()
    assert re.fullmatch(r"dp_[A-Za-z0-9]+", dispute["id"])
    assert (dispute["object"], dispute["charge"], dispute["amount"], dispute["status"], dispute["fee"]) == (
        "dispute",
        charge["id"],
        9_000,
        "needs_response",
        1500,
    )
    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["status"] == "disputed" and isinstance(got["disputed_at"], int)
    assert got["dispute"]["id"] == dispute["id"]
    assert client.get(f"/checkout/{charge['id']}").json()["errorMessage"] == "This payment is under dispute"
    assert_error(
        client.post(f"{API}/charges/{charge['id']}/refunds", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )

    closed = client.post(
        f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "won"}, headers=merchant.auth
    )
    assert closed.status_code == 200 and closed.json()["status"] == "won"
    assert (
        client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()["status"]
        == "partially_refunded"
    )
    assert_error(
        client.post(
            f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "lost"}, headers=merchant.auth
        ),
        400,
        "invalid_request_error",
        "invalid_state",
    )
    # One dispute per charge: back in partially_refunded, it still cannot be disputed again (was a 500).
    assert_error(
        client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )
    assert (
        client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()["dispute"]["id"]
        == dispute["id"]
    )


def test_dispute_lost_stays_disputed(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = captured(client, merchant)
    dispute = client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=merchant.auth).json()
    closed = client.post(
        f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "lost"}, headers=merchant.auth
    )
    assert closed.json()["status"] == "lost"
    assert client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()["status"] == "disputed"


def test_dispute_rules(client: httpx.Client) -> None:
    merchant = sign_up(client)
    pending = create_charge(client, merchant)
    assert_error(
        client.post(f"{HELPERS}/charges/{pending['id']}/dispute", headers=merchant.auth),
        400,
        "invalid_request_error",
        "invalid_state",
    )
    charge = captured(client, merchant)
    dispute = client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=merchant.auth).json()
    assert_error(
        client.post(
            f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "maybe"}, headers=merchant.auth
        ),
        400,
        "invalid_request_error",
        "parameter_invalid",
        "outcome",
    )
    live = sign_up(client, environment="live")
    assert_error(
        client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=live.auth),
        403,
        "authorization_error",
    )
    stranger = sign_up(client)
    assert_error(
        client.post(
            f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "won"}, headers=stranger.auth
        ),
        404,
        "resource_not_found",
    )
