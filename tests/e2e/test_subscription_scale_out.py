"""Two cores and two gateways on one PostgreSQL and Redis: 50 concurrent item changes on one subscription
(10 adds and 40 quantity changes of 8 items, within the 20 active items of DESIGN §10.3), spread over
both gateways, each answered once and each leaving exactly one pending proration.

The subscription has one writer (its actor, fenced in storage), whichever core a request reaches, so
every change must land: no lost update of a quantity, no proration written twice or not at all.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway

pytestmark = pytest.mark.e2e

WEEK = 7 * 86_400
HALF_WEEK = WEEK // 2
SEAT_CENTS = 1000
PRE_CREATED_QUANTITY = 10
ADDS = 10
PRE_ITEMS = 8
UPDATES_PER_ITEM = 5
CHANGES = ADDS + PRE_ITEMS * UPDATES_PER_ITEM
LATE = 120
"""Seconds the last of the 50 serialized changes may land after the half of the period."""


@pytest.fixture(scope="module")
def cluster(stack_env: dict[str, str]) -> Iterator[list[RunningProcess]]:
    env = {**stack_env, "RATE_LIMIT_TEST": "100000", "RATE_LIMIT_LIVE": "100000"}
    cores = [start_core(env), start_core(env)]
    gateways: list[RunningProcess] = []
    try:
        # Each gateway talks to a different core, so the changes of one subscription cross processes.
        gateways = [start_gateway(env, [cores[0].address]), start_gateway(env, [cores[1].address])]
        yield gateways
    finally:
        for process in (*gateways, *cores):
            process.stop()


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def weekly_price(client: httpx.Client, merchant: Merchant, amount: int, trial_days: int = 0) -> str:
    plan = ok(client.post(f"{API}/plans", json={"name": "Seats"}, headers=merchant.auth), 201)
    body: dict[str, Any] = {"amount_cents": amount, "currency": "usd", "interval": "weekly"}
    if trial_days:
        body["trial_period_days"] = trial_days
    return str(
        ok(client.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=merchant.auth), 201)["id"]
    )


def subscription_with_items(
    client: httpx.Client, merchant: Merchant
) -> tuple[dict[str, Any], str, list[str]]:
    """An ACTIVE weekly subscription with 8 items of 10 seats added during a one-day trial (so the table of
    pending prorations starts empty, and the first paid week bills every seat), and the clock at half
    its first paid week."""
    body = {"email": f"c{uuid.uuid4().hex[:12]}@example.com"}
    customer = ok(client.post(f"{API}/customers", json=body, headers=merchant.auth), 201)["id"]
    card = {
        "type": "card",
        "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"},
    }
    ok(client.post(f"{API}/customers/{customer}/payment-methods", json=card, headers=merchant.auth), 201)
    base, seat = (
        weekly_price(client, merchant, 3000, trial_days=1),
        weekly_price(client, merchant, SEAT_CENTS),
    )
    sub = ok(
        client.post(
            f"{API}/subscriptions", json={"customer_id": customer, "price_id": base}, headers=merchant.auth
        ),
        201,
    )
    items_url = f"{API}/subscriptions/{sub['id']}/items"
    pre = [
        ok(
            client.post(
                items_url,
                json={"priceId": seat, "quantity": PRE_CREATED_QUANTITY, "prorationBehavior": "none"},
                headers=merchant.auth,
            ),
            201,
        )["id"]
        for _ in range(PRE_ITEMS)
    ]
    trial_end = sub["trial_end"]
    ended = client.post(f"{API}/test_helpers/clock/advance", json={"to": trial_end}, headers=merchant.auth)
    ok(ended)
    sub = ok(client.get(f"{API}/subscriptions/{sub['id']}", headers=merchant.auth))
    assert sub["status"] == "ACTIVE"
    assert sub["current_period_end"] - sub["current_period_start"] == WEEK
    half = sub["current_period_start"] + HALF_WEEK
    advanced = client.post(f"{API}/test_helpers/clock/advance", json={"to": half}, headers=merchant.auth)
    assert ok(advanced)["now"] == half
    return sub, seat, pre


def new_quantities(k: int) -> list[int]:
    """Item k's five updates: distinct values, none its starting 10, so each one moves (and prorates)
    whatever order they land in; some go down (credits, every seat being billed), some up."""
    return [
        PRE_CREATED_QUANTITY + offset for offset in (-k - 1, k + 1, -k - 2 if k < 7 else 20, k + 3, k + 12)
    ]


def expected_amount(proration: dict[str, Any]) -> int:
    delta = proration["quantity_delta"]
    exact = Fraction(
        proration["unit_amount_cents"] * abs(delta) * proration["seconds_remaining"],
        proration["seconds_total"],
    )
    return (-1 if delta < 0 else 1) * int(exact + Fraction(1, 2))


def test_fifty_concurrent_item_changes_over_two_cores_each_prorate_once(
    cluster: list[RunningProcess], stack_env: dict[str, str]
) -> None:
    with httpx.Client(base_url=cluster[0].base_url, timeout=30.0) as client:
        merchant = sign_up(client)
        sub, seat, pre = subscription_with_items(client, merchant)
    items_url = f"{API}/subscriptions/{sub['id']}/items"

    async def run() -> tuple[list[httpx.Response], list[httpx.Response]]:
        async with (
            httpx.AsyncClient(base_url=cluster[0].base_url, timeout=60.0) as a,
            httpx.AsyncClient(base_url=cluster[1].base_url, timeout=60.0) as b,
        ):
            clients = [a, b]

            def key() -> dict[str, str]:
                return {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}

            adds = [
                clients[k % 2].post(
                    items_url,
                    json={"priceId": seat, "quantity": k + 1, "prorationBehavior": "defer_to_next_cycle"},
                    headers=key(),
                )
                for k in range(ADDS)
            ]
            updates = [
                clients[(k + n) % 2].patch(
                    f"{items_url}/{item_id}",
                    json={"quantity": quantity, "prorationBehavior": "defer_to_next_cycle"},
                    headers=key(),
                )
                for n in range(UPDATES_PER_ITEM)
                for k, item_id in enumerate(pre)
                for quantity in [new_quantities(k)[n]]
            ]
            answers = await asyncio.gather(*adds, *updates)
            return list(answers[:ADDS]), list(answers[ADDS:])

    adds, updates = asyncio.run(run())
    # No 4xx is expected: every change is valid and the actor serializes them.
    assert [r.status_code for r in adds] == [201] * ADDS, [r.text for r in adds if r.status_code != 201]
    assert [r.status_code for r in updates] == [200] * len(updates), [
        r.text for r in updates if r.status_code != 200
    ]
    added = [r.json() for r in adds]
    assert len({item["id"] for item in added} | set(pre)) == ADDS + PRE_ITEMS
    assert [item["quantity"] for item in added] == list(range(1, ADDS + 1))

    with httpx.Client(base_url=cluster[1].base_url, timeout=30.0) as client:
        listed = ok(client.get(items_url, params={"limit": 100}, headers=merchant.auth))["data"]
    assert len(listed) == 1 + ADDS + PRE_ITEMS
    final = {item["id"]: item for item in listed}
    assert {item["id"]: final[item["id"]]["quantity"] for item in added} == {
        i["id"]: i["quantity"] for i in added
    }
    # Each pre-created item ends at whichever of its updates landed last.
    for k, item_id in enumerate(pre):
        assert final[item_id]["quantity"] in new_quantities(k)

    with psycopg.connect(stack_env["DATABASE_URL"]) as conn:
        rows = conn.execute(
            "SELECT item_id, kind, amount_cents, quantity, proration, billed, invoice_id"
            " FROM pending_prorations WHERE subscription_id = %s",
            (sub["id"],),
        ).fetchall()
    assert len(rows) == CHANGES  # 10 adds + 40 quantity changes, one row each
    by_item: dict[str, list[Any]] = {}
    for row in rows:
        by_item.setdefault(row[0], []).append(row)
    assert {item_id: len(item_rows) for item_id, item_rows in by_item.items()} == {
        **{item["id"]: 1 for item in added},
        **{item_id: UPDATES_PER_ITEM for item_id in pre},
    }
    for item_id, item_rows in by_item.items():
        start_quantity = 0 if item_id not in pre else PRE_CREATED_QUANTITY
        # Every seat is billed, so each change prorates exactly its own step, and the steps add up.
        assert (
            sum(row[4]["quantity_delta"] for row in item_rows) == final[item_id]["quantity"] - start_quantity
        )
        for _, kind, amount, quantity, proration, billed, invoice_id in item_rows:
            delta = proration["quantity_delta"]
            assert quantity == abs(delta) and delta != 0
            assert proration["unit_amount_cents"] == SEAT_CENTS and proration["seconds_total"] == WEEK
            assert HALF_WEEK - LATE <= proration["seconds_remaining"] <= HALF_WEEK
            # round(1000 × |Δ| × remaining / 604 800), signed: about 500 × Δ at the half of the week.
            assert amount == expected_amount(proration)
            assert abs(amount - 500 * delta) <= 1 + (SEAT_CENTS * abs(delta) * LATE) // WEEK
            assert kind == ("past_due_proration" if delta > 0 else "credit")
            assert (billed, invoice_id) == (False, None)
