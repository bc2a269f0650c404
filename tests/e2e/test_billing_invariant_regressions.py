"""Failures the billing state machine (test_billing_invariants.py) found that issue 21's audit does not
list, each as the smallest sequence that shows it, written out by hand (docs/billing-invariants.md).
"""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.api_client import API, assert_error, sign_up
from tests.e2e.subscription_api_helpers import (
    DAY,
    advance_to,
    clock_now,
    customer,
    get_sub,
    invoices,
    ok,
    price,
    subscribe,
)

pytestmark = pytest.mark.e2e


def test_a_pause_and_resume_within_one_period_never_bills_the_rest_of_that_period_twice(
    client: httpx.Client,
) -> None:
    """Paused on day 10 and resumed on day 15 of a paid 30-day period: days 15–30 were paid by the first
    invoice, so the resume may not bill them again (DESIGN §10.4: a charge only bills time that no other
    line bills). Found by the state machine: the resume invoices a whole new period from day 15."""
    merchant = sign_up(client)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 3000, interval="monthly")
    )
    start, end = sub["current_period_start"], sub["current_period_end"]
    advance_to(client, merchant, start + 10 * DAY)
    ok(client.post(f"{API}/subscriptions/{sub['id']}/pause", headers=merchant.auth))
    advance_to(client, merchant, start + 15 * DAY)
    ok(client.post(f"{API}/subscriptions/{sub['id']}/resume", headers=merchant.auth))

    billed: dict[int, int] = {}
    for inv in invoices(client, merchant, subscription_id=sub["id"]):
        if inv["status"] == "VOID":
            continue
        for line in inv["lines"]:
            line_start = line["period_start"]
            if line["proration"] is not None:
                line_start = line["period_end"] - line["proration"]["seconds_remaining"]
            quantity = line["proration"]["quantity_delta"] if line["proration"] else line["quantity"]
            for day in range(16, 30):  # the paid days after the resume, away from its second
                moment = start + day * DAY
                if line_start <= moment < line["period_end"]:
                    billed[day] = billed.get(day, 0) + quantity
    assert end > start + 29 * DAY
    doubled = {day: q for day, q in billed.items() if q > 1}
    assert not doubled, f"days of the paid period billed again after the resume (day: quantity): {doubled}"


def test_a_prorated_cancel_of_a_fully_refunded_period_cancels_and_answers_200(client: httpx.Client) -> None:
    """DESIGN §10.2: "If nothing can be refunded (already refunded or disputed), the cancel still succeeds
    with cancel_refund: null". Found by the state machine: it answers 400 charge_already_refunded — and
    the subscription is CANCELED all the same, so a 4xx changed something."""
    merchant = sign_up(client)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 2000, interval="monthly")
    )
    charge_id = invoices(client, merchant, subscription_id=sub["id"])[0]["charge"]
    ok(client.post(f"{API}/charges/{charge_id}/refunds", json={}, headers=merchant.auth), 201)
    advance_to(client, merchant, clock_now(client, merchant) + 4 * DAY)

    answer = client.post(
        f"{API}/subscriptions/{sub['id']}/cancel",
        json={"at_period_end": False, "prorate": True},
        headers=merchant.auth,
    )
    after = get_sub(client, merchant, sub["id"])
    if answer.status_code >= 400:
        assert_error(answer, 400, "invalid_request_error")
        assert after["status"] != "CANCELED", f"answered {answer.status_code} yet canceled: {after}"
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "CANCELED" and answer.json().get("cancel_refund") is None, answer.text


def test_an_invoice_over_the_limit_from_pending_lines_fails_its_attempt_and_is_dunned(
    client: httpx.Client,
) -> None:
    """DESIGN §10.3: an invoice that cannot be charged fails its attempt like a decline and goes through
    dunning. Found by the state machine: a price at the limit (99,999,999, accepted: the next regular
    invoice fits) plus an upgrade's pending proration makes a cycle invoice over the limit. Decided (README,
    Spec decisions): no charge is written for an amount no charge may have; the attempt is counted, names
    `amount_too_large` in the invoice's `failure_code`, and is retried on the dunning schedule."""
    merchant = sign_up(client)
    cheap, dearer = (price(client, merchant, amount, interval="monthly") for amount in (2000, 3000))
    at_limit = price(client, merchant, 99_999_999, interval="monthly")
    sub = subscribe(client, merchant, customer(client, merchant), cheap)
    url = f"{API}/subscriptions/{sub['id']}"
    advance_to(client, merchant, sub["current_period_start"] + 5 * DAY)
    upgrade = {"price_id": dearer, "proration_behavior": "create_prorations"}
    ok(client.patch(url, json=upgrade, headers=merchant.auth))
    ok(client.patch(url, json={"price_id": at_limit, "proration_behavior": "none"}, headers=merchant.auth))
    advance_to(client, merchant, sub["current_period_end"] + 3600)

    cycle = next(
        inv
        for inv in invoices(client, merchant, subscription_id=sub["id"])
        if inv["billing_reason"] == "subscription_cycle"
    )
    assert cycle["total_cents"] > 99_999_999, cycle
    assert (cycle["status"], cycle["attempt_count"], cycle["failure_code"]) == ("OPEN", 1, "amount_too_large")
    assert cycle["next_attempt_at"] is not None
    listed = ok(client.get(f"{API}/charges", params={"limit": "100"}, headers=merchant.auth))["data"]
    assert [c for c in listed if c.get("invoice") == cycle["id"]] == []
    assert get_sub(client, merchant, sub["id"])["status"] == "PAST_DUE"
