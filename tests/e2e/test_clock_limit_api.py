"""The sandbox clock's advance limit through the gateway (DESIGN §10.5): one advance moves TEST time at most
two intervals of the merchant's shortest live price (2 years with none); further → 400 and nothing moves."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.api_client import API, sign_up
from tests.e2e.clock_steps import limit_of, walk_clock
from tests.e2e.subscription_api_helpers import (
    CLOCK,
    DAY,
    clock_now,
    customer,
    get_sub,
    invoices,
    ok,
    price,
    subscribe,
)

pytestmark = pytest.mark.e2e
YEAR_9999 = 253_402_300_799


def test_an_advance_past_two_daily_intervals_is_refused_and_changes_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 3000, interval="daily")
    )
    before = clock_now(client, merchant)
    billed_before = invoices(client, merchant)

    refused = client.post(f"{CLOCK}/advance", json={"to": before + 3 * DAY}, headers=merchant.auth)
    limit = limit_of(refused)
    assert "2 intervals of its shortest price (daily)" in refused.json()["error"]["message"]
    assert before + 2 * DAY <= limit <= clock_now(client, merchant) + 2 * DAY
    # Nothing moved: the clock still runs on from where it was, no period was billed.
    assert clock_now(client, merchant) - before <= 5
    assert invoices(client, merchant) == billed_before
    assert get_sub(client, merchant, sub["id"])["current_period_end"] == sub["current_period_end"]

    # Year 9999 — the advance that used to replay ~36,500 periods — is refused the same way.
    limit_of(client.post(f"{CLOCK}/advance", json={"to": YEAR_9999}, headers=merchant.auth))
    assert clock_now(client, merchant) - before <= 5

    # Up to the limit it moves, and the periods it crosses are billed.
    assert ok(client.post(f"{CLOCK}/advance", json={"to": limit}, headers=merchant.auth))["now"] == limit
    assert len(invoices(client, merchant)) == len(billed_before) + 2


def test_without_a_live_subscription_one_advance_moves_at_most_two_years(client: httpx.Client) -> None:
    merchant = sign_up(client)
    before = clock_now(client, merchant)
    refused = client.post(f"{CLOCK}/advance", json={"to": before + 731 * DAY}, headers=merchant.auth)
    assert "2 years" in refused.json()["error"]["message"]
    assert limit_of(refused) <= clock_now(client, merchant) + 730 * DAY
    assert clock_now(client, merchant) - before <= 5
    limit_of(client.post(f"{CLOCK}/advance", json={"to": YEAR_9999}, headers=merchant.auth))
    to = before + 700 * DAY
    assert ok(client.post(f"{CLOCK}/advance", json={"to": to}, headers=merchant.auth))["now"] == to


def test_a_canceled_subscription_no_longer_bounds_the_clock(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 3000, interval="daily")
    )
    canceled = client.post(
        f"{API}/subscriptions/{sub['id']}/cancel?at_period_end=false", headers=merchant.auth
    )
    assert ok(canceled)["status"] == "CANCELED"
    to = clock_now(client, merchant) + 30 * DAY
    assert ok(client.post(f"{CLOCK}/advance", json={"to": to}, headers=merchant.auth))["now"] == to


def test_a_walk_reaches_a_far_target_in_allowed_steps(client: httpx.Client) -> None:
    merchant = sign_up(client)
    subscribe(client, merchant, customer(client, merchant), price(client, merchant, 3000, interval="daily"))
    to = clock_now(client, merchant) + 5 * DAY + 60
    assert walk_clock(client, merchant.auth, to) == to
    assert len(invoices(client, merchant)) == 6  # the first period's, then one per day crossed
