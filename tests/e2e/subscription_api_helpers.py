"""What the subscription e2e tests share: the sandbox clock, the catalog and customer set-up, reads of
the subscription's items, invoices, charges and events, and the exact recomputation of proration lines.

Prices are weekly (a 604 800-second period) so that a move at exactly half the period prorates exactly
half of the amount (test_subscription_lifecycle_api.py says how drift is kept out of the cents).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import httpx
import psycopg

from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.e2e.clock_steps import walk_clock

CLOCK = f"{API}/test_helpers/clock"


DAY = 86_400


WEEK = 7 * DAY


HALF_WEEK = WEEK // 2  # 302 400 s


OK_CARD = "4242424242424242"


DUNNING_CARD = "4000000000000341"  # attaches fine, every later charge declines (DESIGN §9)


DRIFT = 5
"""Seconds a move may land after the instant the clock was advanced to (requests take time)."""


JSON = dict[str, Any]


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def price(
    client: httpx.Client,
    merchant: Merchant,
    amount: int,
    *,
    currency: str = "usd",
    interval: str = "weekly",
    trial_days: int | None = None,
) -> str:
    plan = ok(client.post(f"{API}/plans", json={"name": "Pro"}, headers=merchant.auth), 201)
    body: JSON = {"amount_cents": amount, "currency": currency, "interval": interval}
    if trial_days is not None:
        body["trial_period_days"] = trial_days
    created = client.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=merchant.auth)
    return str(ok(created, 201)["id"])


def customer(
    client: httpx.Client, merchant: Merchant, *, card: str = OK_CARD, address: JSON | None = None
) -> str:
    body: JSON = {"email": f"c{uuid.uuid4().hex[:12]}@example.com"}
    if address is not None:
        body["address"] = address
    created = ok(client.post(f"{API}/customers", json=body, headers=merchant.auth), 201)
    method = {"type": "card", "card": {"number": card, "exp_month": 12, "exp_year": 2099, "cvc": "123"}}
    ok(
        client.post(f"{API}/customers/{created['id']}/payment-methods", json=method, headers=merchant.auth),
        201,
    )
    return str(created["id"])


def subscribe(
    client: httpx.Client, merchant: Merchant, customer_id: str, price_id: str, **extra: Any
) -> JSON:
    body = {"customer_id": customer_id, "price_id": price_id, **extra}
    return dict(ok(client.post(f"{API}/subscriptions", json=body, headers=merchant.auth), 201))


def new_subscription(client: httpx.Client, amount: int = 3000, **extra: Any) -> tuple[Merchant, JSON]:
    """A fresh merchant (its own sandbox clock) with one ACTIVE weekly subscription of `amount`."""
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, amount), **extra)
    return merchant, sub


def get_sub(client: httpx.Client, merchant: Merchant, sub_id: str) -> JSON:
    return dict(ok(client.get(f"{API}/subscriptions/{sub_id}", headers=merchant.auth)))


def items_of(client: httpx.Client, merchant: Merchant, sub_id: str) -> list[JSON]:
    listed = client.get(f"{API}/subscriptions/{sub_id}/items", params={"limit": 100}, headers=merchant.auth)
    return list(ok(listed)["data"])


def invoice(client: httpx.Client, merchant: Merchant, invoice_id: str) -> JSON:
    return dict(ok(client.get(f"{API}/invoices/{invoice_id}", headers=merchant.auth)))


def invoices(client: httpx.Client, merchant: Merchant, **params: str) -> list[JSON]:
    listed = client.get(f"{API}/invoices", params={"limit": "100", **params}, headers=merchant.auth)
    return list(ok(listed)["data"])


def charge(client: httpx.Client, merchant: Merchant, charge_id: str) -> JSON:
    return dict(ok(client.get(f"{API}/charges/{charge_id}", headers=merchant.auth)))


def invoice_charges(client: httpx.Client, merchant: Merchant) -> list[JSON]:
    """The merchant's charges (GET /charges) that are an invoice's payment attempt."""
    listed = ok(client.get(f"{API}/charges", params={"limit": "100"}, headers=merchant.auth))["data"]
    return [c for c in listed if c.get("invoice")]


def events_of(client: httpx.Client, merchant: Merchant, event_type: str) -> list[JSON]:
    listed = client.get(f"{API}/events", params={"type": event_type, "limit": 100}, headers=merchant.auth)
    return list(ok(listed)["data"])


def clock_now(client: httpx.Client, merchant: Merchant) -> int:
    return int(ok(client.get(CLOCK, headers=merchant.auth))["now"])


def advance_to(client: httpx.Client, merchant: Merchant, to: int) -> int:
    """Moves the clock to `to`, in the steps DESIGN §10.5 allows when one advance may not go that far."""
    assert walk_clock(client, merchant.auth, to) == to
    return to


def to_half_period(client: httpx.Client, merchant: Merchant, sub: JSON) -> int:
    start, end = sub["current_period_start"], sub["current_period_end"]
    assert end - start == WEEK
    return advance_to(client, merchant, start + HALF_WEEK)


def iso(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def unix_of(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp())


def recompute(proration: JSON) -> int:
    """round_half_up(unit × |Δq| × remaining / total), signed like Δq (DESIGN §9), from a line's inputs;
    also checks `unrounded` is that exact value."""
    delta = proration["quantity_delta"]
    exact = Fraction(
        proration["unit_amount_cents"] * abs(delta) * proration["seconds_remaining"],
        proration["seconds_total"],
    )
    sign = -1 if delta < 0 else 1
    # `unrounded` is the exact value, or that value rounded to 6 decimals when it does not terminate.
    assert abs(Fraction(proration["unrounded"]) - sign * exact) <= Fraction(1, 2 * 10**6)
    return sign * int(exact + Fraction(1, 2))


def at_half(proration: JSON) -> None:
    """The line was prorated (almost) exactly at the middle of a weekly period."""
    assert proration["seconds_total"] == WEEK
    assert HALF_WEEK - DRIFT <= proration["seconds_remaining"] <= HALF_WEEK


def without_timing(line: JSON) -> JSON:
    """A line minus the two proration inputs that depend on the second the move ran at."""
    if line["proration"] is None:
        return line
    proration = {k: v for k, v in line["proration"].items() if k not in ("seconds_remaining", "unrounded")}
    return {**line, "proration": proration}


def assert_same_lines(previewed: list[JSON], created: list[JSON]) -> None:
    """The preview and the change ran a few milliseconds apart: everything equal, the remaining seconds
    within the drift, and every amount equal to its own recomputation."""
    assert [without_timing(line) for line in previewed] == [without_timing(line) for line in created]
    for shown, made in zip(previewed, created, strict=True):
        if made["proration"] is not None:
            gap = shown["proration"]["seconds_remaining"] - made["proration"]["seconds_remaining"]
            assert 0 <= gap <= DRIFT
            assert recompute(made["proration"]) == made["amount_cents"]


def pending_lines(stack_env: dict[str, str], sub_id: str, *, billed: bool | None = False) -> list[JSON]:
    """The subscription's rows in `pending_prorations`, as invoice lines (oldest first)."""
    query = (
        "SELECT kind, description, amount_cents, quantity, price_id,"
        " extract(epoch FROM period_start)::bigint, extract(epoch FROM period_end)::bigint,"
        " proration, item_id, billed, invoice_id"
        " FROM pending_prorations WHERE subscription_id = %s ORDER BY seq"
    )
    with psycopg.connect(stack_env["DATABASE_URL"]) as conn:
        rows = conn.execute(query, (sub_id,)).fetchall()
    return [
        {
            "kind": r[0],
            "description": r[1],
            "amount_cents": r[2],
            "quantity": r[3],
            "price_id": r[4],
            "period_start": r[5],
            "period_end": r[6],
            "proration": r[7],
            "_item_id": r[8],
            "_billed": r[9],
            "_invoice_id": r[10],
        }
        for r in rows
        if billed is None or r[9] == billed
    ]


def as_line(row: JSON) -> JSON:
    return {k: v for k, v in row.items() if not k.startswith("_")}


def tax_rate(client: httpx.Client, merchant: Merchant, percentage: str, inclusive: bool, **where: str) -> str:
    body = {"percentage": percentage, "display_name": "Tax", "inclusive": inclusive, **where}
    return str(ok(client.post(f"{API}/tax-rates", json=body, headers=merchant.auth), 201)["id"])


def refused_moves(
    client: httpx.Client, merchant: Merchant, sub: JSON, item_id: str, other_price: str
) -> None:
    """Every price change and item move answers 400 invalid_state and changes nothing."""
    url = f"{API}/subscriptions/{sub['id']}"
    before, items_before = get_sub(client, merchant, sub["id"]), items_of(client, merchant, sub["id"])
    invoices_before = invoices(client, merchant, subscription_id=sub["id"])
    answers = [
        client.patch(url, json={"price_id": other_price}, headers=merchant.auth),
        client.patch(
            url, json={"price_id": other_price, "proration_behavior": "always_invoice"}, headers=merchant.auth
        ),
        client.post(f"{url}/items", json={"priceId": other_price, "quantity": 2}, headers=merchant.auth),
        client.patch(f"{url}/items/{item_id}", json={"quantity": 4}, headers=merchant.auth),
        client.delete(f"{url}/items/{item_id}?immediate=true", headers=merchant.auth),
        client.delete(f"{url}/items/{item_id}", headers=merchant.auth),
    ]
    for answer in answers:
        assert_error(answer, 400, "invalid_request_error", "invalid_state")
    assert get_sub(client, merchant, sub["id"]) == before
    assert items_of(client, merchant, sub["id"]) == items_before
    assert invoices(client, merchant, subscription_id=sub["id"]) == invoices_before
