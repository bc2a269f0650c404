"""Price changes and item moves of a subscription through the real gateway and core (DESIGN §9, spec:
Subscription item moves): what each does to the items, the pending prorations, the invoices and the
events, with every amount computed by hand in the comments. The timing conventions (weekly prices, moves
at half the period) are those of test_subscription_lifecycle_api.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, sign_up
from tests.e2e.subscription_api_helpers import (
    DAY,
    DRIFT,
    DUNNING_CARD,
    advance_to,
    as_line,
    assert_same_lines,
    at_half,
    charge,
    clock_now,
    customer,
    events_of,
    get_sub,
    invoice,
    invoices,
    iso,
    items_of,
    new_subscription,
    ok,
    pending_lines,
    price,
    recompute,
    refused_moves,
    subscribe,
    to_half_period,
    unix_of,
)
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    """The session's core behind a gateway without the per-merchant rate limit: a test here sends far
    more than 25 requests a second as one merchant (every move is followed by its reads)."""
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as http:
        yield http


def test_a_price_change_with_create_prorations_leaves_both_lines_pending_for_the_next_invoice(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    bigger = price(client, merchant, 5000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    preview = ok(client.post(f"{url}/preview", json={"price_id": bigger}, headers=merchant.auth))
    # Credit: −round(3000 × ½) = −1500; charge: round(5000 × ½) = 2500; subtotal 1000, nothing due now.
    assert [line["amount_cents"] for line in preview["lines"]] == [-1500, 2500]
    assert [line["kind"] for line in preview["lines"]] == ["credit", "past_due_proration"]
    assert (preview["subtotal_cents"], preview["tax_cents"], preview["total_cents"]) == (1000, 0, 1000)
    assert preview["due_now_cents"] == 0
    for line in preview["lines"]:
        at_half(line["proration"])
        assert recompute(line["proration"]) == line["amount_cents"]

    changed = ok(client.patch(url, json={"price_id": bigger}, headers=merchant.auth))
    assert changed["price_id"] == bigger and changed["items"][0]["priceId"] == bigger
    assert changed["items"][0]["prorationAmountCents"] == 1000  # −1500 + 2500
    assert changed["latest_invoice"] == sub["latest_invoice"]  # nothing invoiced now
    assert len(invoices(client, merchant)) == 1
    pending = pending_lines(stack_env, sub["id"])
    assert_same_lines(preview["lines"], [as_line(row) for row in pending])
    assert {row["_item_id"] for row in pending} == {sub["items"][0]["id"]}

    # The next invoice takes them: pause, then resume a day later (a resume invoices its new period).
    ok(client.post(f"{url}/pause", headers=merchant.auth))
    advance_to(client, merchant, clock_now(client, merchant) + DAY)
    resumed = ok(client.post(f"{url}/resume", headers=merchant.auth))
    nxt = invoice(client, merchant, resumed["latest_invoice"])
    assert nxt["billing_reason"] == "subscription_resume" and nxt["status"] == "PAID"
    # The period's items first, then the pending charges, then the credits (as long as the total stays
    # chargeable).
    assert [line["kind"] for line in nxt["lines"]] == ["subscription", "past_due_proration", "credit"]
    assert nxt["lines"][0]["amount_cents"] == 5000
    assert nxt["lines"][1:] == [as_line(pending[1]), as_line(pending[0])]
    # 5000 − 1500 + 2500 = 6000.
    assert (nxt["subtotal_cents"], nxt["total_cents"]) == (6000, 6000)
    billed = pending_lines(stack_env, sub["id"], billed=True)
    assert [row["_invoice_id"] for row in billed] == [nxt["id"], nxt["id"]]


def test_a_price_change_with_always_invoice_charges_the_difference_now(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    bigger = price(client, merchant, 5000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    change = {"price_id": bigger, "proration_behavior": "always_invoice"}
    preview = ok(client.post(f"{url}/preview", json=change, headers=merchant.auth))
    assert (preview["total_cents"], preview["due_now_cents"]) == (1000, 1000)

    changed = ok(client.patch(url, json=change, headers=merchant.auth))
    assert changed["price_id"] == bigger and changed["status"] == "ACTIVE"
    assert changed["latest_invoice"] != sub["latest_invoice"]
    now_invoice = invoice(client, merchant, changed["latest_invoice"])
    # Charge − credit at half the week: 2500 − 1500 = 1000, no tax.
    assert now_invoice["status"] == "PAID" and now_invoice["billing_reason"] == "subscription_update"
    assert (now_invoice["subtotal_cents"], now_invoice["tax_cents"], now_invoice["total_cents"]) == (
        1000,
        0,
        1000,
    )
    assert now_invoice["attempt_count"] == 1
    assert (now_invoice["period_start"], now_invoice["period_end"]) == (
        sub["current_period_start"],
        sub["current_period_end"],
    )
    assert_same_lines(preview["lines"], now_invoice["lines"])
    assert [line["amount_cents"] for line in now_invoice["lines"]] == [-1500, 2500]
    paid = charge(client, merchant, now_invoice["charge"])
    assert (paid["status"], paid["amount"], paid["invoice"]) == ("captured", 1000, now_invoice["id"])
    assert len(invoices(client, merchant, subscription_id=sub["id"])) == 2


def test_a_price_change_without_proration_only_switches_the_price(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    bigger = price(client, merchant, 5000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    change = {"price_id": bigger, "proration_behavior": "none"}
    preview = ok(client.post(f"{url}/preview", json=change, headers=merchant.auth))
    assert preview == {
        "object": "subscription_preview",
        "lines": [],
        "subtotal_cents": 0,
        "tax_cents": 0,
        "total_cents": 0,
        "due_now_cents": 0,
    }
    changed = ok(client.patch(url, json=change, headers=merchant.auth))
    base = changed["items"][0]
    assert (changed["price_id"], base["priceId"], base["prorationAmountCents"]) == (bigger, bigger, 0)
    assert changed["latest_invoice"] == sub["latest_invoice"]
    assert pending_lines(stack_env, sub["id"], billed=None) == []
    assert len(invoices(client, merchant)) == 1


def test_a_price_of_another_currency_or_interval_or_archived_is_refused(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    euro = price(client, merchant, 3000, currency="eur")
    monthly = price(client, merchant, 3000, interval="monthly")
    archived = price(client, merchant, 5000)
    ok(client.patch(f"{API}/prices/{archived}", json={"active": False}, headers=merchant.auth))
    before = get_sub(client, merchant, sub["id"])
    for refused in (euro, monthly, archived):
        answer = client.patch(url, json={"price_id": refused}, headers=merchant.auth)
        assert_error(answer, 400, "invalid_request_error", "parameter_invalid", "price_id")
        answer = client.post(f"{url}/items", json={"priceId": refused}, headers=merchant.auth)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "parameter_invalid"
    for refused in (euro, monthly):
        answer = client.post(f"{url}/items", json={"priceId": refused}, headers=merchant.auth)
        assert_error(answer, 400, "invalid_request_error", "parameter_invalid", "priceId")
    assert get_sub(client, merchant, sub["id"]) == before
    assert len(invoices(client, merchant)) == 1


def test_an_item_with_an_archived_price_names_the_priceId_param(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    archived = price(client, merchant, 5000)
    ok(client.patch(f"{API}/prices/{archived}", json={"active": False}, headers=merchant.auth))
    answer = client.post(
        f"{API}/subscriptions/{sub['id']}/items", json={"priceId": archived}, headers=merchant.auth
    )
    assert_error(answer, 400, "invalid_request_error", "parameter_invalid", "priceId")


def test_past_due_paused_and_canceled_subscriptions_refuse_price_changes_and_item_moves(
    client: httpx.Client,
) -> None:
    merchant = sign_up(client)
    base, other = price(client, merchant, 3000), price(client, merchant, 1000)
    past_due = subscribe(client, merchant, customer(client, merchant, card=DUNNING_CARD), base)
    assert past_due["status"] == "PAST_DUE"
    refused_moves(client, merchant, past_due, past_due["items"][0]["id"], other)

    for move in ("pause", "cancel"):
        sub = subscribe(client, merchant, customer(client, merchant), base)
        url = f"{API}/subscriptions/{sub['id']}"
        addon = ok(
            client.post(f"{url}/items", json={"priceId": other, "quantity": 2}, headers=merchant.auth), 201
        )
        moved = ok(client.post(f"{url}/{move}", headers=merchant.auth))
        assert moved["status"] == {"pause": "PAUSED", "cancel": "CANCELED"}[move]
        refused_moves(client, merchant, moved, addon["id"], other)


def test_an_item_added_mid_period_defers_its_proration_to_the_next_invoice(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    half = to_half_period(client, merchant, sub)
    add = {"priceId": seat, "quantity": 3, "prorationBehavior": "defer_to_next_cycle"}
    preview = ok(client.post(f"{url}/preview", json={"add_item": add}, headers=merchant.auth))
    # round(1000 × 3 × ½) = 1500, waiting for the next invoice: nothing due now.
    assert (preview["subtotal_cents"], preview["total_cents"], preview["due_now_cents"]) == (1500, 1500, 0)

    item = ok(
        client.post(f"{url}/items", json={**add, "metadata": {"seat": "a"}}, headers=merchant.auth), 201
    )
    assert half <= item["created"] <= half + DRIFT
    assert item == {
        "id": item["id"],
        "object": "subscription_item",
        "subscriptionId": sub["id"],
        "priceId": seat,
        "quantity": 3,
        "status": "active",
        "prorationBehavior": "defer_to_next_cycle",
        "prorationAmountCents": 1500,
        "isBaseItem": False,
        "addedAt": iso(item["created"]),
        "removedAt": None,
        "metadata": {"seat": "a"},
        "created": item["created"],
        "livemode": False,
    }
    [row] = pending_lines(stack_env, sub["id"])
    assert row["_item_id"] == item["id"] and row["kind"] == "past_due_proration"
    at_half(row["proration"])
    assert row["proration"]["quantity_delta"] == 3 and row["proration"]["unit_amount_cents"] == 1000
    assert_same_lines(preview["lines"], [as_line(row)])
    assert items_of(client, merchant, sub["id"]) == [sub["items"][0], item]
    assert len(invoices(client, merchant)) == 1  # nothing invoiced now


def test_an_item_added_with_charge_immediately_is_invoiced_and_paid_now(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    add = {"priceId": seat, "quantity": 2, "prorationBehavior": "charge_immediately"}
    preview = ok(client.post(f"{url}/preview", json={"add_item": add}, headers=merchant.auth))
    # round(1000 × 2 × ½) = 1000, due now.
    assert (preview["total_cents"], preview["due_now_cents"]) == (1000, 1000)

    item = ok(client.post(f"{url}/items", json=add, headers=merchant.auth), 201)
    assert (item["prorationAmountCents"], item["prorationBehavior"]) == (1000, "charge_immediately")
    latest = get_sub(client, merchant, sub["id"])["latest_invoice"]
    assert latest != sub["latest_invoice"]
    now_invoice = invoice(client, merchant, latest)
    assert now_invoice["status"] == "PAID" and now_invoice["billing_reason"] == "subscription_update"
    assert (now_invoice["subtotal_cents"], now_invoice["total_cents"], now_invoice["attempt_count"]) == (
        1000,
        1000,
        1,
    )
    [line] = now_invoice["lines"]
    assert (line["kind"], line["amount_cents"], line["quantity"], line["price_id"]) == (
        "past_due_proration",
        1000,
        2,
        seat,
    )
    at_half(line["proration"])
    assert line["proration"]["unit_amount_cents"] == 1000 and line["proration"]["quantity_delta"] == 2
    assert recompute(line["proration"]) == 1000
    assert_same_lines(preview["lines"], now_invoice["lines"])
    paid = charge(client, merchant, now_invoice["charge"])
    assert (paid["status"], paid["amount"], paid["invoice"]) == ("captured", 1000, latest)


def test_an_item_added_without_proration_starts_with_the_next_period(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    to_half_period(client, merchant, sub)
    add = {"priceId": seat, "quantity": 2, "prorationBehavior": "none"}
    item = ok(client.post(f"{API}/subscriptions/{sub['id']}/items", json=add, headers=merchant.auth), 201)
    assert (item["prorationAmountCents"], item["prorationBehavior"], item["status"]) == (0, "none", "active")
    assert pending_lines(stack_env, sub["id"], billed=None) == []
    assert len(invoices(client, merchant)) == 1


def test_quantity_changes_prorate_the_difference_a_decrease_as_a_credit(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    added = client.post(
        f"{url}/items",
        json={"priceId": seat, "quantity": 2, "prorationBehavior": "none"},
        headers=merchant.auth,
    )
    item = ok(added, 201)
    to_half_period(client, merchant, sub)

    up = {"update_item": {"id": item["id"], "quantity": 5}}
    # The item's own behaviour (none) applies to a preview of a quantity change: nothing.
    assert ok(client.post(f"{url}/preview", json=up, headers=merchant.auth))["lines"] == []
    raised = ok(
        client.patch(
            f"{url}/items/{item['id']}",
            json={"quantity": 5, "prorationBehavior": "defer_to_next_cycle"},
            headers=merchant.auth,
        )
    )
    # +3 seats × 1000 × ½ = +1500.
    assert raised == {
        **item,
        "quantity": 5,
        "prorationBehavior": "defer_to_next_cycle",
        "prorationAmountCents": 1500,
    }

    down = {"update_item": {"id": item["id"], "quantity": 1}}
    preview = ok(client.post(f"{url}/preview", json=down, headers=merchant.auth))
    # 5 → 1 gives up 4 seats, but only 3 were ever billed (the 2 added with `none` were not), and the
    # one kept is a billed one: 2 billed seats × 1000 × ½ = −1000 (DESIGN §10.4). A negative total is
    # credited to the customer's balance, nothing is charged now.
    assert (preview["subtotal_cents"], preview["total_cents"], preview["due_now_cents"]) == (-1000, -1000, 0)
    lowered = ok(client.patch(f"{url}/items/{item['id']}", json={"quantity": 1}, headers=merchant.auth))
    assert lowered == {**raised, "quantity": 1, "prorationAmountCents": -1000}

    rows = pending_lines(stack_env, sub["id"])
    assert [
        (r["kind"], r["amount_cents"], r["quantity"], r["proration"]["quantity_delta"]) for r in rows
    ] == [
        ("past_due_proration", 1500, 3, 3),
        ("credit", -1000, 2, -2),
    ]
    for row in rows:
        at_half(row["proration"])
        assert recompute(row["proration"]) == row["amount_cents"]
    assert_same_lines(preview["lines"], [as_line(rows[1])])
    assert len(invoices(client, merchant)) == 1


def test_an_immediate_removal_credits_the_rest_and_a_deferred_one_ends_with_the_period(
    client: httpx.Client, stack_env: dict[str, str]
) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    now_gone = ok(
        client.post(f"{url}/items", json={"priceId": seat, "quantity": 3}, headers=merchant.auth), 201
    )
    later_gone = ok(
        client.post(f"{url}/items", json={"priceId": seat, "quantity": 2}, headers=merchant.auth), 201
    )
    added_rows = pending_lines(stack_env, sub["id"])
    assert len(added_rows) == 2  # their adds at the period start prorated the whole week
    half = to_half_period(client, merchant, sub)

    remove = {"remove_item": {"id": now_gone["id"], "immediate": True}}
    preview = ok(client.post(f"{url}/preview", json=remove, headers=merchant.auth))
    # −3 × 1000 × ½ = −1500.
    assert [line["amount_cents"] for line in preview["lines"]] == [-1500]
    removed = ok(client.delete(f"{url}/items/{now_gone['id']}?immediate=true", headers=merchant.auth))
    assert half <= unix_of(removed["removedAt"]) <= half + DRIFT
    assert removed == {
        **now_gone,
        "status": "removed",
        "removedAt": removed["removedAt"],
        "prorationAmountCents": -1500,
    }
    credit = pending_lines(stack_env, sub["id"])[2:]
    assert_same_lines(preview["lines"], [as_line(row) for row in credit])
    assert credit[0]["kind"] == "credit" and credit[0]["_item_id"] == now_gone["id"]

    deferred = {"remove_item": {"id": later_gone["id"], "immediate": False}}
    assert ok(client.post(f"{url}/preview", json=deferred, headers=merchant.auth))["lines"] == []
    ending = ok(client.delete(f"{url}/items/{later_gone['id']}", headers=merchant.auth))
    assert ending == {**later_gone, "removedAt": iso(sub["current_period_end"])}
    assert len(pending_lines(stack_env, sub["id"])) == 3  # no proration for a removal at period end
    assert items_of(client, merchant, sub["id"]) == [sub["items"][0], removed, ending]
    # Either removal is final: the item cannot move again.
    for gone in (now_gone, later_gone):
        again = client.patch(f"{url}/items/{gone['id']}", json={"quantity": 4}, headers=merchant.auth)
        assert_error(again, 400, "invalid_request_error", "invalid_state")


def test_the_base_item_cannot_be_removed_and_unknown_or_foreign_items_are_not_found(
    client: httpx.Client,
) -> None:
    merchant, sub = new_subscription(client, 3000)
    url = f"{API}/subscriptions/{sub['id']}"
    base = sub["items"][0]["id"]
    for immediate in ("true", "false"):
        refused = client.delete(f"{url}/items/{base}?immediate={immediate}", headers=merchant.auth)
        assert_error(refused, 400, "invalid_request_error", "invalid_state")
    _, other_sub = new_subscription(client, 3000)
    own_other = subscribe(client, merchant, customer(client, merchant), sub["price_id"])
    for unknown in (
        f"si_item_{'x' * 24}",
        "si_item_nope",
        other_sub["items"][0]["id"],
        own_other["items"][0]["id"],
    ):
        for answer in (
            client.patch(f"{url}/items/{unknown}", json={"quantity": 2}, headers=merchant.auth),
            client.delete(f"{url}/items/{unknown}", headers=merchant.auth),
            client.post(
                f"{url}/preview", json={"update_item": {"id": unknown, "quantity": 2}}, headers=merchant.auth
            ),
        ):
            assert_error(answer, 404, "resource_not_found", "resource_missing")
    assert get_sub(client, merchant, sub["id"])["items"] == sub["items"]


def test_item_events_carry_the_item_as_the_rest_answer(client: httpx.Client) -> None:
    merchant, sub = new_subscription(client, 3000)
    seat = price(client, merchant, 1000)
    url = f"{API}/subscriptions/{sub['id']}"
    to_half_period(client, merchant, sub)
    item = ok(client.post(f"{url}/items", json={"priceId": seat, "quantity": 2}, headers=merchant.auth), 201)
    updated = ok(client.patch(f"{url}/items/{item['id']}", json={"quantity": 3}, headers=merchant.auth))
    deleted = ok(client.delete(f"{url}/items/{item['id']}?immediate=true", headers=merchant.auth))
    [created_event] = events_of(client, merchant, "subscription_item.created")
    [updated_event] = events_of(client, merchant, "subscription_item.updated")
    [deleted_event] = events_of(client, merchant, "subscription_item.deleted")
    assert created_event["data"]["object"] == item
    assert updated_event["data"]["object"] == updated
    assert deleted_event["data"]["object"] == deleted
