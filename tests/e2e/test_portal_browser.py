"""The customer portal in a real browser (Debian's Chromium via Playwright, as the checkout's browser
test) against the real processes: open the URL, update the card, cancel at period end, open an invoice,
and return to the merchant."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.e2e.api_client import API, Merchant, sign_up
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, MerchantPages
from tests.support.subscription_shop import ok, subscribed

pytestmark = pytest.mark.e2e

NEXT_YEAR = str(datetime.date.today().year + 1)


@pytest.fixture(scope="module")
def merchant_site() -> Iterator[str]:
    """The merchant's own site, where the portal's return link leads."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), MerchantPages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    problems: list[str] = []  # CSP violations show up here
    opened.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    opened.on("pageerror", lambda err: problems.append(str(err)))
    yield opened
    context.close()
    assert problems == []


@pytest.fixture
def merchant(client: httpx.Client) -> Merchant:
    merchant = sign_up(client)
    profile = client.patch(
        "/api/v1/merchants/me",
        json={"business_name": "Acme Outfitters", "brand_color": "#5b21b6"},
        headers=merchant.jwt,
    )
    assert profile.status_code == 200, profile.text
    return merchant


def _fill_card(page: Page, number: str) -> None:
    page.get_by_label("Card number").fill(number)
    page.get_by_label("Expiry month").fill("12")
    page.get_by_label("Expiry year").fill(NEXT_YEAR)
    page.get_by_label("CVC").fill("123")


def test_a_customer_updates_the_card_cancels_opens_an_invoice_and_returns(
    client: httpx.Client, merchant: Merchant, page: Page, merchant_site: str
) -> None:
    customer_id, subscription_id = subscribed(client, merchant)
    return_url = f"{merchant_site}/account"
    body = {"customer_id": customer_id, "return_url": return_url}
    session = ok(client.post(f"{API}/portal-sessions", json=body, headers=merchant.auth), 201)

    page.goto(session["url"])
    expect(page.get_by_role("heading", name="Billing", exact=True)).to_be_visible()
    expect(page.get_by_text("Acme Outfitters", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Pro")).to_be_visible()
    expect(page.get_by_text("ending in 4242")).to_be_visible()
    expect(page.get_by_text("Next invoice")).to_be_visible()

    # A declined card is explained on the form; a good one becomes the default.
    page.get_by_role("link", name="Update payment method").click()
    _fill_card(page, "4000 0000 0000 0002")
    page.get_by_role("button", name="Save card").click()
    expect(page.get_by_role("alert")).to_contain_text("Your card was declined.")
    _fill_card(page, "4012 8888 8888 1881")
    page.get_by_role("button", name="Save card").click()
    expect(page.get_by_role("status")).to_contain_text("Your payment method was updated.")
    expect(page.get_by_text("ending in 1881")).to_be_visible()

    # Cancel at period end, through the confirmation page.
    page.get_by_role("link", name="Cancel subscription").click()
    expect(page.get_by_role("heading", name="Cancel Pro?")).to_be_visible()
    page.get_by_role("button", name="Cancel at period end").click()
    expect(page.get_by_role("status")).to_contain_text("canceled at the end of the current period")
    expect(page.get_by_text("(canceled at period end)")).to_be_visible()
    sub = ok(client.get(f"{API}/subscriptions/{subscription_id}", headers=merchant.auth))
    assert sub["cancel_at_period_end"] is True

    # One invoice of the billing history, with its lines, tax and total.
    page.get_by_role("link", name="View").first.click()
    expect(page.get_by_role("heading", name="Invoice of")).to_be_visible()
    expect(page.locator("tfoot tr.total")).to_contain_text("$30.00")
    expect(page.get_by_role("row", name="Tax")).to_contain_text("$0.00")
    page.get_by_role("link", name="Back to billing").click()

    # And back to the merchant.
    page.get_by_role("link", name="Return to Acme Outfitters").click()
    page.wait_for_url(return_url)
    expect(page.get_by_role("heading", name="Merchant page /account")).to_be_visible()
