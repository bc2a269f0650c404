"""Bounded subscriptions through the real gateway and core (DESIGN §10.3, issue 23): the items list is
paged like every list, and the portal page does a bounded amount of work however many subscriptions and
items a customer holds — at most 10 subscription panels (each simulates its next invoice), a link to
the rest, and the cancel pages read only their own subscription."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.e2e.subscription_api_helpers import JSON, customer, ok, price, subscribe
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

_PANEL = re.compile(r'<article class="sub"')
_MORE = re.compile(r'href="([^"]*\?after=(sub_[A-Za-z0-9]+))">More subscriptions<')


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as http:
        yield http


def add_items(client: httpx.Client, merchant: Merchant, sub_id: str, seat: str, count: int) -> list[str]:
    url = f"{API}/subscriptions/{sub_id}/items"
    body = {"priceId": seat, "prorationBehavior": "none"}
    return [str(ok(client.post(url, json=body, headers=merchant.auth), 201)["id"]) for _ in range(count)]


def test_the_items_list_is_paged_base_item_first(client: httpx.Client) -> None:
    merchant = sign_up(client)
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 1_000))
    added = add_items(client, merchant, sub["id"], price(client, merchant, 100), 11)
    url = f"{API}/subscriptions/{sub['id']}/items"

    first = ok(client.get(url, headers=merchant.auth))
    assert (len(first["data"]), first["has_more"], first["total_count"]) == (10, True, 12)
    assert first["data"][0]["priceId"] == sub["price_id"]  # the base item first, then by time added
    assert [item["id"] for item in first["data"][1:]] == added[:9]
    rest = ok(client.get(url, params={"starting_after": first["data"][-1]["id"]}, headers=merchant.auth))
    assert [item["id"] for item in rest["data"]] == added[9:]
    assert (rest["has_more"], rest["total_count"]) == (False, 12)
    assert len(ok(client.get(url, params={"limit": 100}, headers=merchant.auth))["data"]) == 12
    two = ok(client.get(url, params={"limit": 2}, headers=merchant.auth))
    assert (len(two["data"]), two["has_more"]) == (2, True)

    for limit in (0, 101):
        refused = client.get(url, params={"limit": limit}, headers=merchant.auth)
        assert_error(refused, 400, "invalid_request_error", "parameter_invalid", "limit")
    unknown = client.get(url, params={"starting_after": "si_" + "0" * 32}, headers=merchant.auth)
    assert_error(unknown, 400, "invalid_request_error", "parameter_invalid", "starting_after")


def test_the_portal_page_shows_at_most_10_panels_with_a_link_to_the_rest(client: httpx.Client) -> None:
    """12 subscriptions, the newest with 20 items: a page simulates at most 10 next invoices."""
    merchant = sign_up(client)
    customer_id = customer(client, merchant)
    base_price, seat = price(client, merchant, 1_000), price(client, merchant, 100)
    subs = [subscribe(client, merchant, customer_id, base_price)["id"] for _ in range(12)]
    add_items(client, merchant, subs[-1], seat, 19)  # 20 active items, the most one may hold
    body: JSON = {"customer_id": customer_id, "return_url": "https://shop.example/account"}
    session = ok(client.post(f"{API}/portal-sessions", json=body, headers=merchant.auth), 201)
    base = urlsplit(session["url"]).path

    home = client.get(base)
    assert home.status_code == 200
    assert len(_PANEL.findall(home.text)) == 10  # newest first: subs[11] … subs[2]
    assert all(sub_id in home.text for sub_id in subs[2:]) and subs[0] not in home.text
    assert home.text.count("× ") == 20 + 9  # the 20-item panel lists its items, each other one its base
    more = _MORE.search(home.text)
    assert more is not None and more.group(2) == subs[2]
    rest = client.get(more.group(1))
    assert rest.status_code == 200 and len(_PANEL.findall(rest.text)) == 2
    assert subs[0] in rest.text and subs[1] in rest.text and _MORE.search(rest.text) is None

    # A cancel page reads its own subscription only, wherever it is in the list.
    confirm = client.get(f"{base}/subscriptions/{subs[0]}/cancel")
    assert confirm.status_code == 200 and "Cancel at period end" in confirm.text
    stranger = sign_up(client)
    other = subscribe(client, stranger, customer(client, stranger), price(client, stranger, 1_000))
    assert client.get(f"{base}/subscriptions/{other['id']}/cancel").status_code == 404
