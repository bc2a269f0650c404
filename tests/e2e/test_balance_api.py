"""The balance and its balance transactions through the gateway (DESIGN §9): captures pending, then
available once the sandbox clock is past two days; refunds and disputes as negative rows; filters and
cursor pagination; another tenant (or environment) sees none of it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, sign_up
from tests.e2e.subscription_api_helpers import new_subscription
from tests.support.balance_api import balance, captured, transactions
from tests.support.processes import RunningProcess
from tests.support.reconcile import assert_merchant_reconciles
from tests.support.sandbox_clock import DAY, HOUR, advance

pytestmark = pytest.mark.e2e
HELPERS = f"{API}/test_helpers"
ROOT = Path(__file__).resolve().parents[2]


def test_captures_are_pending_then_available_two_days_later(client: httpx.Client) -> None:
    merchant = sign_up(client)
    assert balance(client, merchant) == {
        "object": "balance",
        "available": [],
        "pending": [],
        "livemode": False,
    }
    first = captured(client, merchant, 10_000)  # fee 320, net 9680
    captured(client, merchant, 100, capture=1)  # a 1-cent capture: fee 1, net 0
    body = balance(client, merchant)
    assert body["available"] == [{"amount": 0, "currency": "usd"}]
    assert body["pending"] == [{"amount": 9_680, "currency": "usd"}]
    for prefix in ("/connect/v1", "/v1"):  # every address alias answers the same
        assert balance(client, merchant, prefix) == body

    advance(client, merchant, 2 * DAY - HOUR)
    assert balance(client, merchant)["available"] == [{"amount": 0, "currency": "usd"}]
    advance(client, merchant, HOUR + 5)
    body = balance(client, merchant)
    assert body["available"] == [{"amount": 9_680, "currency": "usd"}]
    assert body["pending"] == [{"amount": 0, "currency": "usd"}]

    listed = transactions(client, merchant, type="charge")
    assert listed["object"] == "list" and listed["total_count"] == 2
    rows = {row["source"]: row for row in listed["data"]}
    row = rows[first["id"]]
    assert row["id"].startswith("txn_") and row["object"] == "balance_transaction"
    assert (row["type"], row["amount"], row["fee"], row["tax"], row["net"], row["currency"]) == (
        "charge",
        10_000,
        320,
        0,
        9_680,
        "usd",
    )
    assert (row["status"], row["payout"], row["livemode"]) == ("available", None, False)
    assert row["available_on"] == row["created"] + 2 * DAY


def test_refunds_and_disputes_are_negative_rows_and_the_filters_and_pages_work(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = captured(client, merchant, 10_000)
    client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 1_000}, headers=merchant.auth)
    dispute = client.post(f"{HELPERS}/charges/{charge['id']}/dispute", headers=merchant.auth).json()
    client.post(f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "won"}, headers=merchant.auth)

    every = transactions(client, merchant, limit=100)
    assert [(r["type"], r["amount"], r["fee"], r["net"]) for r in every["data"]] == [
        ("dispute_won", 9_000, -1_500, 10_500),
        ("dispute", -9_000, 1_500, -10_500),
        ("refund", -1_000, 0, -1_000),
        ("charge", 10_000, 320, 9_680),
    ]
    assert balance(client, merchant)["pending"] == [{"amount": 8_680, "currency": "usd"}]

    assert [r["type"] for r in transactions(client, merchant, type="refund")["data"]] == ["refund"]
    assert transactions(client, merchant, currency="eur")["data"] == []
    assert transactions(client, merchant, currency="USD")["total_count"] == 4
    assert transactions(client, merchant, payout="po_none")["data"] == []

    first = transactions(client, merchant, limit=3)
    assert (len(first["data"]), first["has_more"], first["total_count"]) == (3, True, 4)
    rest = transactions(client, merchant, limit=3, starting_after=first["data"][-1]["id"])
    assert (len(rest["data"]), rest["has_more"]) == (1, False)
    assert [r["id"] for r in first["data"] + rest["data"]] == [r["id"] for r in every["data"]]

    assert_error(
        client.get(f"{API}/balance-transactions", params={"type": "bogus"}, headers=merchant.auth),
        400,
        "invalid_request_error",
    )
    assert_error(
        client.get(f"{API}/balance-transactions", params={"limit": 0}, headers=merchant.auth),
        400,
        "invalid_request_error",
    )


def test_another_tenant_or_environment_sees_nothing(client: httpx.Client) -> None:
    a = sign_up(client)
    b = sign_up(client)
    captured(client, a, 5_000)
    a_row = transactions(client, a)["data"][0]
    assert balance(client, b)["pending"] == []
    assert transactions(client, b)["data"] == []
    assert_error(
        client.get(f"{API}/balance-transactions", params={"starting_after": a_row["id"]}, headers=b.auth),
        400,
        "invalid_request_error",
    )
    live = sign_up(client, environment="live")
    body = balance(client, live)
    assert (body["pending"], body["livemode"]) == ([], True)


def test_make_reconcile_asks_the_core_and_proves_this_merchants_ledger(
    client: httpx.Client, core_process: RunningProcess
) -> None:
    merchant = sign_up(client)
    charge = captured(client, merchant, 10_000)
    client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 400}, headers=merchant.auth)
    output = assert_merchant_reconciles(core_process.address, merchant.id)
    assert f"{merchant.id} test usd: available 0 pending 9280 = rows 9280 (2 rows)" in output
    assert "reconciled" in output.splitlines()[-1]


def test_an_empty_type_filter_is_refused(client: httpx.Client) -> None:
    merchant = sign_up(client)
    assert_error(
        client.get(f"{API}/balance-transactions?type=", headers=merchant.auth), 400, "invalid_request_error"
    )


def test_a_paid_invoice_is_one_subscription_row_and_its_charge_none(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, amount=3000)
    rows = transactions(client, merchant)["data"]
    assert [(r["type"], r["source"], r["amount"], r["fee"], r["tax"], r["net"]) for r in rows] == [
        ("subscription", sub["latest_invoice"], 3000, 117, 0, 2883),
    ]
    assert balance(client, merchant)["pending"] == [{"amount": 2883, "currency": "usd"}]
