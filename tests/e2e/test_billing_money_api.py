"""Issue 21's audit, replayed through the gateway as a merchant would meet it (DESIGN §10.1–§10.4).

Each test is one finding of the audit: it failed on the code before the customer credit balance, the
billed-time proration, the invoice limit and the cancel refund's idempotency, and passes after.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.e2e.subscription_api_helpers import (
    DUNNING_CARD,
    JSON,
    advance_to,
    charge,
    customer,
    get_sub,
    invoice,
    invoices,
    ok,
    price,
    subscribe,
    tax_rate,
)

pytestmark = pytest.mark.e2e

DAY = 86_400


def balance_transactions(client: httpx.Client, merchant: Merchant, customer_id: str) -> list[JSON]:
    url = f"{API}/customers/{customer_id}/balance-transactions"
    return list(ok(client.get(url, params={"limit": 100}, headers=merchant.auth))["data"])


def credit_balance(client: httpx.Client, merchant: Merchant, customer_id: str) -> dict[str, int]:
    found = ok(client.get(f"{API}/customers/{customer_id}", headers=merchant.auth))
    return dict(found["credit_balance"])


def paced(send: Callable[[], httpx.Response]) -> httpx.Response:
    """A request that waits out the TEST rate limit (25/s) when a burst of requests meets it."""
    deadline = time.monotonic() + 10
    while True:
        response = send()
        if response.status_code != 429 or time.monotonic() > deadline:
            return response
        time.sleep(float(response.headers.get("Retry-After", "1")))


def paced_post(client: httpx.Client, url: str, body: JSON, merchant: Merchant) -> httpx.Response:
    return paced(lambda: client.post(url, json=body, headers=merchant.auth))


def test_a_downgrades_credit_is_used_up_over_the_next_invoices_to_the_cent(client: httpx.Client) -> None:
    """$1,000 → $20 a day into a 2-day period: the unused half of $1,000 (−50,000) and the $20's half
    (+1,000) make the next invoice 2,000 − 49,000 = −47,000, credited; the next invoices are paid from it."""
    merchant = sign_up(client)
    cus = customer(client, merchant)
    big, small = (price(client, merchant, amount, interval="daily") for amount in (100_000, 2_000))
    sub = subscribe(client, merchant, cus, big)
    # interval "daily" with interval_count 1 is 1 day; use the exact half of the period.
    half = sub["current_period_start"] + (sub["current_period_end"] - sub["current_period_start"]) // 2
    advance_to(client, merchant, half)
    changed = client.patch(
        f"{API}/subscriptions/{sub['id']}",
        json={"price_id": small, "proration_behavior": "create_prorations"},
        headers=merchant.auth,
    )
    ok(changed)
    advance_to(client, merchant, sub["current_period_end"] + 1)
    [credited, first] = invoices(client, merchant, subscription_id=sub["id"])
    assert (credited["subtotal_cents"], credited["total_cents"]) == (-47_000, -47_000)
    assert (credited["status"], credited["amount_due_cents"], credited["charge"]) == ("PAID", 0, None)
    assert credit_balance(client, merchant, cus) == {"usd": 47_000}
    # Three more days: each 2,000 invoice is paid from the credit, nothing charged.
    for day in (2, 3, 4):
        advance_to(client, merchant, sub["current_period_start"] + day * DAY + 1)
    later = invoices(client, merchant, subscription_id=sub["id"])[:3]
    assert [
        (i["total_cents"], i["credit_applied_cents"], i["amount_due_cents"], i["charge"]) for i in later
    ] == [(2_000, 2_000, 0, None)] * 3
    assert credit_balance(client, merchant, cus) == {"usd": 41_000}
    moves = [
        (t["type"], t["amount_cents"], t["ending_balance_cents"])
        for t in balance_transactions(client, merchant, cus)
    ]
    assert moves[::-1] == [
        ("invoice_credit", 47_000, 47_000),
        ("applied_to_invoice", -2_000, 45_000),
        ("applied_to_invoice", -2_000, 43_000),
        ("applied_to_invoice", -2_000, 41_000),
    ]
    # Only the first invoice was ever charged.
    assert [c["amount"] for c in ok(client.get(f"{API}/charges", headers=merchant.auth))["data"]] == [100_000]
    assert first["charge"] is not None


def test_a_credit_below_the_invoice_is_applied_and_the_rest_charged_with_its_share_of_tax(
    client: httpx.Client,
) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant)
    rate = tax_rate(client, merchant, "8", False)
    weekly = price(client, merchant, 10_000)
    sub = subscribe(client, merchant, cus, weekly, tax_rate_id=rate)
    # A goodwill credit of 2,000, then the next week: 10,800 − 2,000 = 8,800 charged.
    adjustment = {"amount_cents": 2_000, "currency": "usd", "description": "Sorry for the outage"}
    made = ok(
        client.post(f"{API}/customers/{cus}/balance-transactions", json=adjustment, headers=merchant.auth),
        201,
    )
    assert (made["type"], made["ending_balance_cents"], made["object"]) == (
        "adjustment",
        2_000,
        "customer_balance_transaction",
    )
    advance_to(client, merchant, sub["current_period_end"] + 1)
    week2 = invoices(client, merchant, subscription_id=sub["id"])[0]
    assert (week2["total_cents"], week2["credit_applied_cents"], week2["amount_due_cents"]) == (
        10_800,
        2_000,
        8_800,
    )
    assert charge(client, merchant, week2["charge"])["amount"] == 8_800
    # The ledger books what was charged, with the tax in it: round(800 × 8,800 / 10,800) = 652.
    rows = ok(
        client.get(f"{API}/balance-transactions", params={"type": "subscription"}, headers=merchant.auth)
    )
    row = next(r for r in rows["data"] if r["source"] == week2["id"])
    assert (row["amount"], row["tax"], row["fee"] + row["tax"] + row["net"]) == (8_800, 652, 8_800)


def test_an_adjustment_may_not_take_the_balance_below_zero(client: httpx.Client) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant)
    url = f"{API}/customers/{cus}/balance-transactions"
    refused = client.post(url, json={"amount_cents": -1, "currency": "usd"}, headers=merchant.auth)
    assert_error(refused, 400, "invalid_request_error", "parameter_invalid", "amount_cents")
    for body in ({"amount_cents": 0, "currency": "usd"}, {"amount_cents": 100_000_000, "currency": "usd"}):
        assert_error(
            client.post(url, json=body, headers=merchant.auth),
            400,
            "invalid_request_error",
            param="amount_cents",
        )
    assert ok(client.get(url, headers=merchant.auth))["total_count"] == 0  # a 4xx left nothing behind
    key = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    first = ok(client.post(url, json={"amount_cents": 500, "currency": "eur"}, headers=key), 201)
    again = client.post(url, json={"amount_cents": 500, "currency": "eur"}, headers=key)
    assert again.headers.get("Idempotent-Replayed") == "true" and again.json() == first
    ok(client.post(url, json={"amount_cents": -500, "currency": "eur"}, headers=merchant.auth), 201)
    listed = ok(client.get(url, headers=merchant.auth))
    assert listed["total_count"] == 2 and [t["amount_cents"] for t in listed["data"]] == [-500, 500]
    assert credit_balance(client, merchant, cus) == {}
    other = sign_up(client)
    assert_error(client.get(url, headers=other.auth), 404, "resource_not_found", "resource_missing", "id")


def test_an_invoice_too_large_to_charge_is_refused_and_leaves_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant)
    rate = tax_rate(client, merchant, "8", False)
    huge = price(client, merchant, 99_999_999)
    body = {"customer_id": cus, "price_id": huge, "tax_rate_id": rate}
    refused = client.post(f"{API}/subscriptions", json=body, headers=merchant.auth)
    assert_error(refused, 400, "invalid_request_error", "amount_too_large", "price_id")
    assert ok(client.get(f"{API}/subscriptions", headers=merchant.auth))["data"] == []
    assert invoices(client, merchant) == []
    assert ok(client.get(f"{API}/charges", headers=merchant.auth))["data"] == []


def test_the_21st_active_item_is_refused(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 1_000))
    seat = price(client, merchant, 100)
    url = f"{API}/subscriptions/{sub['id']}/items"
    for _ in range(19):
        ok(paced_post(client, url, {"priceId": seat, "prorationBehavior": "none"}, merchant), 201)
    refused = paced_post(client, url, {"priceId": seat, "prorationBehavior": "none"}, merchant)
    assert_error(refused, 400, "invalid_request_error", "parameter_invalid", "priceId")
    # Paced too: the twenty POSTs just before may have spent this second's requests.
    items = ok(paced(lambda: client.get(url, params={"limit": 100}, headers=merchant.auth)))
    assert len(items["data"]) == 20


def test_an_item_added_without_proration_is_credited_only_for_time_billed(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 7_000))
    seat = price(client, merchant, 1_400)
    url = f"{API}/subscriptions/{sub['id']}"
    item = ok(
        client.post(
            f"{url}/items",
            json={"priceId": seat, "quantity": 2, "prorationBehavior": "none"},
            headers=merchant.auth,
        ),
        201,
    )
    advance_to(client, merchant, sub["current_period_start"] + 3 * DAY)
    # Reduced before it was ever billed: no credit for time never charged.
    lowered = client.patch(
        f"{url}/items/{item['id']}",
        json={"quantity": 1, "prorationBehavior": "defer_to_next_cycle"},
        headers=merchant.auth,
    )
    assert ok(lowered)["prorationAmountCents"] == 0
    # Next week bills the seat in full; removed 2 days into it, its 5 unused days come back.
    advance_to(client, merchant, sub["current_period_end"] + 2 * DAY)
    removed = ok(client.delete(f"{url}/items/{item['id']}?immediate=true", headers=merchant.auth))
    assert removed["prorationAmountCents"] == -1_000  # 1,400 × 5/7
    advance_to(client, merchant, sub["current_period_end"] + 7 * DAY + 1)
    week3 = invoices(client, merchant, subscription_id=sub["id"])[0]
    assert [line["amount_cents"] for line in week3["lines"]] == [7_000, -1_000]


def test_cancel_with_prorate_refunds_once_and_a_retry_answers_the_same_refund(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 7_000))
    advance_to(client, merchant, sub["current_period_start"] + 5 * DAY)
    key = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    body = {"at_period_end": False, "prorate": True}
    canceled = ok(client.post(f"{API}/subscriptions/{sub['id']}/cancel", json=body, headers=key))
    assert canceled["status"] == "CANCELED" and canceled["cancel_refund"] is not None
    again = client.post(f"{API}/subscriptions/{sub['id']}/cancel", json=body, headers=key)
    assert again.status_code == 200 and again.json()["cancel_refund"] == canceled["cancel_refund"]
    paid = invoice(client, merchant, sub["latest_invoice"])
    refunds = charge(client, merchant, paid["charge"])["refunds"]
    assert [(r["id"], r["amount"]) for r in refunds] == [(canceled["cancel_refund"], 2_000)]  # 7,000 × 2/7
    assert get_sub(client, merchant, sub["id"])["cancel_refund"] == canceled["cancel_refund"]


def test_cancel_with_prorate_of_a_refunded_charge_still_cancels(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 7_000))
    paid = invoice(client, merchant, sub["latest_invoice"])
    ok(client.post(f"{API}/charges/{paid['charge']}/refunds", json={}, headers=merchant.auth), 201)
    body = {"at_period_end": False, "prorate": True}
    canceled = ok(client.post(f"{API}/subscriptions/{sub['id']}/cancel", json=body, headers=merchant.auth))
    assert (canceled["status"], canceled["cancel_refund"]) == ("CANCELED", None)


def test_a_cancel_closes_what_is_still_open(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(
        client, merchant, customer(client, merchant, card=DUNNING_CARD), price(client, merchant, 3_000)
    )
    assert get_sub(client, merchant, sub["id"])["status"] == "PAST_DUE"
    ok(
        client.post(
            f"{API}/subscriptions/{sub['id']}/cancel", json={"at_period_end": False}, headers=merchant.auth
        )
    )
    owed = invoice(client, merchant, sub["latest_invoice"])
    assert (owed["status"], owed["next_attempt_at"]) == ("UNCOLLECTIBLE", None)
    advance_to(client, merchant, sub["current_period_start"] + 20 * DAY)
    assert invoice(client, merchant, sub["latest_invoice"])["attempt_count"] == 1  # never retried


def test_objects_made_while_replaying_an_advance_are_dated_at_their_step(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 3_000))
    advance_to(client, merchant, sub["current_period_start"] + 3 * 7 * DAY + 1)
    made = invoices(client, merchant, subscription_id=sub["id"])
    assert len(made) == 4
    for one in made:
        assert one["created"] == one["period_start"]
        assert charge(client, merchant, one["charge"])["created"] == one["period_start"]


def test_a_voided_invoice_gives_back_the_credit_it_took(client: httpx.Client) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant, card=DUNNING_CARD)
    grant = {"amount_cents": 1_000, "currency": "usd"}
    ok(client.post(f"{API}/customers/{cus}/balance-transactions", json=grant, headers=merchant.auth), 201)
    sub = subscribe(client, merchant, cus, price(client, merchant, 3_000))
    owed = invoice(client, merchant, sub["latest_invoice"])
    assert (owed["status"], owed["credit_applied_cents"], owed["amount_due_cents"]) == ("OPEN", 1_000, 2_000)
    assert credit_balance(client, merchant, cus) == {}
    ok(client.post(f"{API}/invoices/{owed['id']}/void", headers=merchant.auth))
    assert credit_balance(client, merchant, cus) == {"usd": 1_000}
    [returned, applied, granted] = balance_transactions(client, merchant, cus)
    assert (returned["type"], returned["amount_cents"], returned["invoice_id"]) == (
        "invoice_credit",
        1_000,
        owed["id"],
    )
    assert (applied["amount_cents"], granted["amount_cents"]) == (-1_000, 1_000)


def test_an_invoice_a_later_tax_rate_made_too_large_is_dunned_like_a_decline(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 95_000_000))
    rate = tax_rate(client, merchant, "8", False)
    ok(client.patch(f"{API}/subscriptions/{sub['id']}", json={"tax_rate_id": rate}, headers=merchant.auth))
    advance_to(client, merchant, sub["current_period_end"] + 1)
    week2 = invoices(client, merchant, subscription_id=sub["id"])[0]
    assert week2["total_cents"] == 102_600_000
    assert (week2["status"], week2["failure_code"], week2["attempt_count"]) == ("OPEN", "amount_too_large", 1)
    assert week2["next_attempt_at"] == week2["created"] + 3 * DAY
    assert get_sub(client, merchant, sub["id"])["status"] == "PAST_DUE"


def test_the_portal_shows_the_customers_credit_and_what_an_invoice_took_from_it(client: httpx.Client) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant)
    grant = {"amount_cents": 120_000, "currency": "usd", "description": "Goodwill"}
    ok(client.post(f"{API}/customers/{cus}/balance-transactions", json=grant, headers=merchant.auth), 201)
    sub = subscribe(client, merchant, cus, price(client, merchant, 3_000))
    body = {"customer_id": cus, "return_url": "https://shop.example/account"}
    session = ok(client.post(f"{API}/portal-sessions", json=body, headers=merchant.auth), 201)
    page = client.get(urlsplit(session["url"]).path, headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "Account credit" in page.text and "$1,170.00" in page.text
    shown = client.get(
        f"{urlsplit(session['url']).path}/invoices/{sub['latest_invoice']}", headers={"Accept": "text/html"}
    )
    assert "Account credit applied" in shown.text and "$30.00" in shown.text and "$0.00" in shown.text
