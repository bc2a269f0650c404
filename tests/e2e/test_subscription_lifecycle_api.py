"""Subscription behaviour through the real gateway and core (DESIGN §9, spec: Subscription transitions,
Subscription item moves, Recurring billing): what each move does to the subscription, its items, its
invoices, the charges and the events, with every amount computed by hand in the comments.

Prices are weekly (a 604 800-second period) so that a move at exactly half the period, put there with
the sandbox clock, prorates exactly half of the amount. The clock keeps running after an advance, so a
move lands 0–2 seconds after the half: the amounts below are chosen so that such a drift cannot change
a rounded cent (e.g. 3000 × 302 399 / 604 800 = 1499.995 → 1500), and the `proration` inputs each line
carries are recomputed exactly.

Item moves and price changes are in test_subscription_changes_api.py, dunning in
test_subscription_dunning_api.py; the helpers they share, in subscription_api_helpers.py.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, sign_up
from tests.e2e.subscription_api_helpers import (
    DAY,
    DRIFT,
    DUNNING_CARD,
    JSON,
    WEEK,
    advance_to,
    charge,
    clock_now,
    customer,
    events_of,
    get_sub,
    invoice,
    invoice_charges,
    invoices,
    iso,
    items_of,
    new_subscription,
    ok,
    pending_lines,
    price,
    subscribe,
    tax_rate,
    to_half_period,
)
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """The session's core behind a gateway without the per-merchant rate limit: a test here sends far
    more than 25 requests a second as one merchant (every move is followed by its reads)."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as http:
        yield http


def test_creation_without_a_trial_is_active_and_its_first_period_is_invoiced_and_paid(
    client: httpx.Client,
) -> None:
    merchant = sign_up(client)
    cus = customer(client, merchant)
    base = price(client, merchant, 3000)
    before = clock_now(client, merchant)
    sub = subscribe(client, merchant, cus, base, metadata={"crm": "7"})
    created = sub["created"]
    assert before <= created <= before + DRIFT
    assert re.fullmatch(r"sub_[A-Za-z0-9]{24}", sub["id"])
    [item] = sub["items"]
    assert re.fullmatch(r"si_item_[A-Za-z0-9]{24}", item["id"])
    assert item == {
        "id": item["id"],
        "object": "subscription_item",
        "subscriptionId": sub["id"],
        "priceId": base,
        "quantity": 1,
        "status": "active",
        "prorationBehavior": "none",
        "prorationAmountCents": 0,
        "isBaseItem": True,
        "addedAt": iso(created),
        "removedAt": None,
        "metadata": {},
        "created": created,
        "livemode": False,
    }
    invoice_id = sub["latest_invoice"]
    assert sub == {
        "id": sub["id"],
        "object": "subscription",
        "customer_id": cus,
        "price_id": base,
        "status": "ACTIVE",
        "collection_method": "charge_automatically",
        "tax_rate_id": None,
        "trial_start": None,
        "trial_end": None,
        "current_period_start": created,
        "current_period_end": created + WEEK,
        "cancel_at_period_end": False,
        "canceled_at": None,
        "cancel_reason": None,
        "paused_at": None,
        "cancel_refund": None,
        "items": [item],
        "latest_invoice": invoice_id,
        "metadata": {"crm": "7"},
        "created": created,
        "livemode": False,
    }
    assert get_sub(client, merchant, sub["id"]) == sub

    paid = invoice(client, merchant, invoice_id)
    assert re.fullmatch(r"si_[0-9a-f]{32}", invoice_id)
    assert paid["charge"] is not None and paid["paid_at"] is not None
    assert created <= paid["paid_at"] <= created + DRIFT
    assert paid == {
        "id": invoice_id,
        "invoice_id": invoice_id,
        "object": "invoice",
        "subscription_id": sub["id"],
        "merchant_account_id": merchant.id,
        "customer_id": cus,
        "currency": "usd",
        "subtotal_cents": 3000,
        "tax_cents": 0,
        "total_cents": 3000,
        "credit_applied_cents": 0,
        "amount_due_cents": 3000,
        "failure_code": None,
        "tax_rate_id": None,
        "status": "PAID",
        "billing_reason": "subscription_create",
        "period_start": created,
        "period_end": created + WEEK,
        "attempt_count": 1,
        "next_attempt_at": None,
        "lines": [
            {
                "kind": "subscription",
                "description": f"1 × {base}",
                "amount_cents": 3000,
                "quantity": 1,
                "price_id": base,
                "period_start": created,
                "period_end": created + WEEK,
                "proration": None,
            }
        ],
        "charge": paid["charge"],
        "paid_at": paid["paid_at"],
        "created": created,
        "livemode": False,
    }
    # The attempt is one of the merchant's charges: captured at once, pointing back at the invoice.
    [attempt] = invoice_charges(client, merchant)
    assert attempt == charge(client, merchant, paid["charge"])
    assert attempt["invoice"] == invoice_id
    assert (attempt["status"], attempt["amount"], attempt["currency"]) == ("captured", 3000, "usd")
    assert attempt["amount_captured"] == 3000 and attempt["amount_refunded"] == 0
    [paid_event] = events_of(client, merchant, "invoice.paid")
    assert paid_event["data"]["object"] == paid
    [created_event] = events_of(client, merchant, "subscription.created")
    assert created_event["data"]["object"]["id"] == sub["id"]


def test_an_explicit_exclusive_tax_rate_is_added_on_top(client: httpx.Client) -> None:
    merchant = sign_up(client)
    rate = tax_rate(client, merchant, "8.25", False, country="US", state="CA")
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 3000), tax_rate_id=rate
    )
    assert sub["tax_rate_id"] == rate
    paid = invoice(client, merchant, sub["latest_invoice"])
    # Exclusive: tax = round_half_up(3000 × 8.25 / 100 = 247.5) = 248; total = 3000 + 248 = 3248.
    assert (paid["subtotal_cents"], paid["tax_cents"], paid["total_cents"]) == (3000, 248, 3248)
    assert paid["tax_rate_id"] == rate and paid["status"] == "PAID"
    assert charge(client, merchant, paid["charge"])["amount"] == 3248


def test_an_explicit_inclusive_tax_rate_is_carved_out_of_the_total(client: httpx.Client) -> None:
    merchant = sign_up(client)
    rate = tax_rate(client, merchant, "10", True)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 3000), tax_rate_id=rate
    )
    paid = invoice(client, merchant, sub["latest_invoice"])
    # Inclusive: total = 3000; tax = 3000 − round_half_up(3000 / 1.10 = 2727.27…) = 3000 − 2727 = 273.
    assert (paid["subtotal_cents"], paid["tax_cents"], paid["total_cents"]) == (3000, 273, 3000)
    assert charge(client, merchant, paid["charge"])["amount"] == 3000


def test_the_tax_rate_is_detected_from_the_customer_address(client: httpx.Client) -> None:
    merchant = sign_up(client)
    base = price(client, merchant, 3000)
    california = tax_rate(client, merchant, "8.25", False, country="US", state="CA")
    country_wide = tax_rate(client, merchant, "10", True, country="US")
    address = {"line1": "1 Main St", "city": "X", "postal_code": "1", "country": "US"}

    def taxed(where: JSON) -> JSON:
        sub = subscribe(client, merchant, customer(client, merchant, address={**address, **where}), base)
        assert sub["tax_rate_id"] is None  # detected per invoice, not pinned on the subscription
        return invoice(client, merchant, sub["latest_invoice"])

    in_ca = taxed({"state": "CA"})
    # Country and state first: 8.25 % exclusive → 248 on top of 3000 (see above).
    assert (in_ca["tax_rate_id"], in_ca["subtotal_cents"], in_ca["tax_cents"], in_ca["total_cents"]) == (
        california,
        3000,
        248,
        3248,
    )
    in_tx = taxed({"state": "TX"})
    # No Texas rate: the country's rate with no state, 10 % inclusive → 273 carved out of 3000.
    assert (in_tx["tax_rate_id"], in_tx["subtotal_cents"], in_tx["tax_cents"], in_tx["total_cents"]) == (
        country_wide,
        3000,
        273,
        3000,
    )
    abroad = taxed({"country": "FR", "state": ""})
    assert (abroad["tax_rate_id"], abroad["tax_cents"], abroad["total_cents"]) == (None, 0, 3000)


def test_creation_with_a_trial_is_trialing_and_charges_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    trial_price = price(client, merchant, 3000, trial_days=14)
    sub = subscribe(client, merchant, customer(client, merchant), trial_price)
    created = sub["created"]
    assert sub["status"] == "TRIALING"
    assert (sub["trial_start"], sub["trial_end"]) == (created, created + 14 * DAY)
    assert (sub["current_period_start"], sub["current_period_end"]) == (created, created + 14 * DAY)
    assert sub["latest_invoice"] is None
    assert invoices(client, merchant, subscription_id=sub["id"]) == []
    assert invoice_charges(client, merchant) == []
    assert get_sub(client, merchant, sub["id"]) == sub


def test_cancel_at_period_end_keeps_it_active_until_then(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    canceling = ok(client.post(f"{url}/cancel?at_period_end=true", headers=merchant.auth))
    assert canceling == {**sub, "cancel_at_period_end": True}
    assert get_sub(client, merchant, sub["id"]) == canceling
    assert events_of(client, merchant, "subscription.canceled") == []


def test_an_immediate_cancel_is_canceled_now_and_says_so(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    half = to_half_period(client, merchant, sub)
    canceled = ok(client.post(f"{url}/cancel?at_period_end=false", headers=merchant.auth))
    assert half <= canceled["canceled_at"] <= half + DRIFT
    assert canceled == {
        **sub,
        "status": "CANCELED",
        "canceled_at": canceled["canceled_at"],
        "cancel_reason": "canceled_by_merchant",
    }
    [event] = events_of(client, merchant, "subscription.canceled")
    assert event["data"]["object"] == canceled == get_sub(client, merchant, sub["id"])
    # Without prorate, nothing is refunded.
    first = invoice(client, merchant, sub["latest_invoice"])
    assert charge(client, merchant, first["charge"])["amount_refunded"] == 0


def test_an_immediate_cancel_with_prorate_refunds_the_unused_half(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    canceled = ok(
        client.post(f"{url}/cancel", json={"at_period_end": False, "prorate": True}, headers=merchant.auth)
    )
    assert canceled["status"] == "CANCELED"
    paid = charge(client, merchant, invoice(client, merchant, sub["latest_invoice"])["charge"])
    # The unused share of the paid 3000 at half the week: round(3000 × 302 400 / 604 800) = 1500.
    assert paid["amount_refunded"] == 1500 and paid["status"] == "partially_refunded"
    assert [r["amount"] for r in paid["refunds"]] == [1500]


def test_pause_then_resume_starts_a_new_period_invoiced_at_once(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    start = clock_now(client, merchant)
    paused = ok(client.post(f"{url}/pause", headers=merchant.auth))
    assert start <= paused["paused_at"] <= start + DRIFT
    assert paused == {**sub, "status": "PAUSED", "paused_at": paused["paused_at"]}

    resume_at = advance_to(client, merchant, sub["current_period_start"] + 10 * DAY)
    resumed = ok(client.post(f"{url}/resume", headers=merchant.auth))
    new_start = resumed["current_period_start"]
    assert resume_at <= new_start <= resume_at + DRIFT
    assert resumed == {
        **sub,
        "status": "ACTIVE",
        "paused_at": None,
        "current_period_start": new_start,
        "current_period_end": new_start + WEEK,
        "latest_invoice": resumed["latest_invoice"],
    }
    fresh = invoice(client, merchant, resumed["latest_invoice"])
    assert fresh["billing_reason"] == "subscription_resume" and fresh["status"] == "PAID"
    assert (fresh["period_start"], fresh["period_end"]) == (new_start, new_start + WEEK)
    assert [(line["kind"], line["amount_cents"]) for line in fresh["lines"]] == [("subscription", 3000)]
    assert fresh["total_cents"] == 3000 and fresh["attempt_count"] == 1
    paid = charge(client, merchant, fresh["charge"])
    assert (paid["status"], paid["amount"], paid["invoice"]) == ("captured", 3000, fresh["id"])
    assert len(invoices(client, merchant, subscription_id=sub["id"])) == 2


def test_previews_of_the_four_changes_change_nothing(client: httpx.Client, stack_env: dict[str, str]) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat, bigger = price(client, merchant, 1000), price(client, merchant, 5000)
    url = f"{API}/subscriptions/{sub['id']}"
    item = ok(
        client.post(
            f"{url}/items", json={"priceId": seat, "prorationBehavior": "none"}, headers=merchant.auth
        ),
        201,
    )
    to_half_period(client, merchant, sub)
    before, rows_before = (
        get_sub(client, merchant, sub["id"]),
        pending_lines(stack_env, sub["id"], billed=None),
    )
    invoices_before, charges_before = invoices(client, merchant), invoice_charges(client, merchant)
    changes = [
        {"price_id": bigger, "proration_behavior": "always_invoice"},
        {"add_item": {"priceId": seat, "quantity": 4, "prorationBehavior": "charge_immediately"}},
        {"update_item": {"id": item["id"], "quantity": 7}},
        {"remove_item": {"id": item["id"], "immediate": True}},
    ]
    for change in changes:
        shown = ok(client.post(f"{url}/preview", json=change, headers=merchant.auth))
        assert shown["object"] == "subscription_preview"
    assert get_sub(client, merchant, sub["id"]) == before
    assert pending_lines(stack_env, sub["id"], billed=None) == rows_before
    assert invoices(client, merchant) == invoices_before
    assert invoice_charges(client, merchant) == charges_before
    created = events_of(client, merchant, "subscription_item.created")
    assert [e["data"]["object"]["id"] for e in created] == [item["id"]]


def test_list_filters_of_subscriptions_and_invoices(client: httpx.Client) -> None:
    merchant = sign_up(client)
    first, second = customer(client, merchant), customer(client, merchant)
    late = customer(client, merchant, card=DUNNING_CARD)
    basic, pro = price(client, merchant, 3000), price(client, merchant, 5000)
    trial = price(client, merchant, 3000, trial_days=7)
    a = subscribe(client, merchant, first, basic)
    b = subscribe(client, merchant, second, pro)
    ok(client.post(f"{API}/subscriptions/{b['id']}/pause", headers=merchant.auth))
    c = subscribe(client, merchant, first, trial)
    d = subscribe(client, merchant, late, basic)

    def ids(**params: str) -> set[str]:
        listed = client.get(f"{API}/subscriptions", params={"limit": "100", **params}, headers=merchant.auth)
        return {s["id"] for s in ok(listed)["data"]}

    assert ids() == {a["id"], b["id"], c["id"], d["id"]}
    assert ids(customer_id=first) == {a["id"], c["id"]}
    assert ids(status="PAUSED") == {b["id"]}
    assert ids(status="TRIALING") == {c["id"]}
    assert ids(status="PAST_DUE") == {d["id"]}
    assert ids(price_id=basic) == {a["id"], d["id"]}
    assert ids(price_id=pro, status="ACTIVE") == set()
    assert ids(customer_id=first, price_id=trial) == {c["id"]}

    def invoice_ids(**params: str) -> set[str]:
        return {i["id"] for i in invoices(client, merchant, **params)}

    assert invoice_ids() == {a["latest_invoice"], b["latest_invoice"], d["latest_invoice"]}
    assert invoice_ids(subscription_id=a["id"]) == {a["latest_invoice"]}
    assert invoice_ids(customer_id=second) == {b["latest_invoice"]}
    assert invoice_ids(customer_id=first) == {a["latest_invoice"]}  # the trial has none
    assert invoice_ids(status="OPEN") == {d["latest_invoice"]}
    assert invoice_ids(status="PAID") == {a["latest_invoice"], b["latest_invoice"]}
    assert invoice_ids(status="PAID", customer_id=late) == set()


def test_another_merchants_subscription_invoice_and_items_are_not_found(client: httpx.Client) -> None:
    owner, sub = new_subscription(client, 3000)
    seat = price(client, owner, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    item = ok(client.post(f"{url}/items", json={"priceId": seat}, headers=owner.auth), 201)
    before = get_sub(client, owner, sub["id"])
    other, own = new_subscription(client, 3000)
    own_seat = price(client, other, 1000)
    answers = [
        client.get(url, headers=other.auth),
        client.patch(url, json={"metadata": {"x": "y"}}, headers=other.auth),
        client.post(f"{url}/cancel", headers=other.auth),
        client.post(f"{url}/pause", headers=other.auth),
        client.post(f"{url}/preview", json={"price_id": own_seat}, headers=other.auth),
        client.get(f"{url}/items", headers=other.auth),
        client.post(f"{url}/items", json={"priceId": own_seat}, headers=other.auth),
        client.patch(f"{url}/items/{item['id']}", json={"quantity": 2}, headers=other.auth),
        client.delete(f"{url}/items/{item['id']}", headers=other.auth),
        client.get(f"{API}/invoices/{sub['latest_invoice']}", headers=other.auth),
        # The foreign item through the caller's own subscription.
        client.patch(
            f"{API}/subscriptions/{own['id']}/items/{item['id']}", json={"quantity": 2}, headers=other.auth
        ),
    ]
    for answer in answers:
        assert_error(answer, 404, "resource_not_found", "resource_missing")
    assert client.get(f"{API}/subscriptions", headers=other.auth).json()["data"] == [
        get_sub(client, other, own["id"])
    ]
    assert [i["id"] for i in invoices(client, other)] == [own["latest_invoice"]]
    assert invoices(client, other, subscription_id=sub["id"]) == []
    assert get_sub(client, owner, sub["id"]) == before


def test_an_idempotent_replay_of_a_create_makes_one_subscription_one_invoice_and_one_charge(
    client: httpx.Client,
) -> None:
    merchant = sign_up(client)
    body = {"customer_id": customer(client, merchant), "price_id": price(client, merchant, 3000)}
    headers = {**merchant.auth, "Idempotency-Key": f"sub-{uuid.uuid4().hex}"}
    first = client.post(f"{API}/subscriptions", json=body, headers=headers)
    again = client.post(f"{API}/subscriptions", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    sub = first.json()
    assert [s["id"] for s in ok(client.get(f"{API}/subscriptions", headers=merchant.auth))["data"]] == [
        sub["id"]
    ]
    assert [i["id"] for i in invoices(client, merchant)] == [sub["latest_invoice"]]
    [attempt] = invoice_charges(client, merchant)
    assert attempt["invoice"] == sub["latest_invoice"] and attempt["status"] == "captured"


def test_an_always_invoice_change_is_taxed_like_any_invoice(client: httpx.Client) -> None:
    merchant = sign_up(client)
    rate = tax_rate(client, merchant, "8.25", False)
    base, bigger = price(client, merchant, 3000), price(client, merchant, 5000)
    sub = subscribe(client, merchant, customer(client, merchant), base, tax_rate_id=rate)
    to_half_period(client, merchant, sub)
    change = {"price_id": bigger, "proration_behavior": "always_invoice"}
    preview = ok(client.post(f"{API}/subscriptions/{sub['id']}/preview", json=change, headers=merchant.auth))
    changed = ok(client.patch(f"{API}/subscriptions/{sub['id']}", json=change, headers=merchant.auth))
    now_invoice = invoice(client, merchant, changed["latest_invoice"])
    # Subtotal 2500 − 1500 = 1000; tax round_half_up(1000 × 8.25 / 100 = 82.5) = 83; total 1083.
    totals = (now_invoice["subtotal_cents"], now_invoice["tax_cents"], now_invoice["total_cents"])
    assert (
        totals
        == (1000, 83, 1083)
        == (preview["subtotal_cents"], preview["tax_cents"], preview["total_cents"])
    )
    assert preview["due_now_cents"] == 1083 and now_invoice["tax_rate_id"] == rate
    assert charge(client, merchant, now_invoice["charge"])["amount"] == 1083


def test_an_idempotent_replay_of_a_charge_immediately_add_charges_once(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    to_half_period(client, merchant, sub)
    url = f"{API}/subscriptions/{sub['id']}/items"
    body = {"priceId": seat, "quantity": 2, "prorationBehavior": "charge_immediately"}
    headers = {**merchant.auth, "Idempotency-Key": f"seat-{uuid.uuid4().hex}"}
    first = client.post(url, json=body, headers=headers)
    again = client.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    assert len(items_of(client, merchant, sub["id"])) == 2
    updates = invoices(client, merchant, subscription_id=sub["id"])
    assert sorted(i["billing_reason"] for i in updates) == ["subscription_create", "subscription_update"]
    # One 1000 charge for the add (round(1000 × 2 × ½)), besides the first period's 3000.
    assert sorted(c["amount"] for c in invoice_charges(client, merchant)) == [1000, 3000]
