"""The dashboard's billing and money pages in Debian's Chromium against the real processes (DESIGN
§10.7): customers, subscriptions, invoices, balance, payouts, webhooks and events show data made through
the API; the credit adjustment acts once on a double submit; cancel and resend act; axe-core finds no
serious or critical violation; a 390 px viewport never scrolls sideways."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from tests.e2e.api_client import API, PASSWORD, Merchant, authorized_charge, sign_up
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS
from tests.support.dashboard import browser_sign_in
from tests.support.subscription_shop import ok, subscribed
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

DASHBOARD = "/dashboard"


@dataclass(frozen=True)
class Business:
    """One merchant's data, made through the API for every test of this module."""

    merchant: Merchant
    customer_id: str
    subscription_id: str
    invoice_id: str
    charge_id: str
    endpoint_id: str
    event_id: str
    declined_invoice_id: str


def _wait_for(check: Any, what: str, seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def api(gateway_process: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as http:
        yield http


@pytest.fixture(scope="module")
def business(api: httpx.Client, receiver: WebhookReceiver) -> Business:
    client = api
    merchant = sign_up(client)
    auth = merchant.auth
    hook = {"url": receiver.url("/dash"), "events": ["*"], "description": "Shop backend"}
    endpoint = ok(client.post(f"{API}/webhooks", json=hook, headers=auth), 201)
    customer_id, subscription_id = subscribed(client, merchant)
    invoices = ok(client.get(f"{API}/invoices", params={"customer_id": customer_id}, headers=auth))
    dunning_customer, _ = subscribed(client, merchant, card="4000000000000341")  # declines later
    declined = ok(client.get(f"{API}/invoices", params={"customer_id": dunning_customer}, headers=auth))
    charge = authorized_charge(client, merchant, amount=4_200)
    ok(client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers=auth))
    ok(client.post(f"{API}/charges/{charge['id']}/refunds", json={"amount": 700}, headers=auth), 201)
    deliveries_url = f"{API}/webhooks/{endpoint['id']}/deliveries"
    deliveries = _wait_for(
        lambda: ok(client.get(deliveries_url, headers=auth))["data"], "the endpoint's first deliveries"
    )
    return Business(
        merchant,
        customer_id,
        subscription_id,
        invoices["data"][0]["id"],
        charge["id"],
        endpoint["id"],
        deliveries[-1]["event"],
        declined["data"][0]["id"],
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def signed_in(browser: Browser, business: Business, gateway_process: Any) -> Iterator[BrowserContext]:
    """One session for the module: signing in is the skeleton's test, not this one's."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=gateway_process.base_url)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    browser_sign_in(page, gateway_process.base_url, business.merchant.email, PASSWORD)
    page.close()
    yield context
    context.close()


@pytest.fixture
def page(signed_in: BrowserContext) -> Iterator[Page]:
    opened = signed_in.new_page()
    problems: list[str] = []  # CSP violations show up here
    opened.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    opened.on("pageerror", lambda err: problems.append(str(err)))
    yield opened
    opened.close()
    assert problems == []


def _accessible(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == [], [(v["id"], [n["target"] for n in v["nodes"]]) for v in serious]


def _fits_390(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        "[...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > 391"
        " || e.scrollWidth > 391)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + e.getBoundingClientRect().right)"
    )
    assert width <= 390, f"{page.url} scrolls sideways at 390 px ({width} px wide): {wide}"
    page.set_viewport_size({"width": 1280, "height": 900})


def _check(page: Page) -> None:
    _accessible(page)
    _fits_390(page)


def test_every_billing_and_money_page_shows_the_api_data(page: Page, business: Business) -> None:
    b = business
    page.goto(f"{DASHBOARD}/customers")
    expect(page.get_by_role("heading", name="Customers", exact=True)).to_be_visible()
    page.get_by_role("link", name=b.customer_id).click()
    expect(page.get_by_role("heading", name="Credit balance")).to_be_visible()
    expect(page.get_by_text("Visa ending 4242")).to_be_visible()
    expect(page.get_by_role("link", name=b.subscription_id)).to_be_visible()
    expect(page.get_by_role("link", name=b.invoice_id)).to_be_visible()
    _check(page)

    page.goto(f"{DASHBOARD}/subscriptions")
    page.get_by_role("link", name=b.subscription_id).click()
    expect(page.get_by_role("heading", name="Items")).to_be_visible()
    expect(page.get_by_text("(base)")).to_be_visible()
    _check(page)

    page.goto(f"{DASHBOARD}/invoices")
    expect(page.get_by_role("cell", name="$30.00").first).to_be_visible()
    page.get_by_role("link", name=b.invoice_id).click()
    expect(page.get_by_role("heading", name="Lines")).to_be_visible()
    expect(page.get_by_text("Credit applied")).to_be_visible()
    expect(page.get_by_text("Amount due")).to_be_visible()
    expect(page.get_by_role("heading", name="Attempts")).to_be_visible()
    attempts = page.get_by_role("table", name="Payment attempts").locator("tbody tr")
    expect(attempts).to_have_count(1)
    expect(attempts).to_contain_text("captured")
    page.goto(f"{DASHBOARD}/invoices/{b.declined_invoice_id}")
    failed = page.get_by_role("table", name="Payment attempts").locator("tbody tr")
    expect(failed.first).to_contain_text("failed")
    expect(failed.first).to_contain_text("generic_decline")
    _check(page)

    page.goto(f"{DASHBOARD}/balance")
    expect(page.get_by_role("heading", name="Available")).to_be_visible()
    expect(page.get_by_role("table", name="Balance transactions")).to_contain_text("refund")
    expect(page.get_by_role("table", name="Balance transactions")).to_contain_text("$42.00")
    _check(page)

    page.goto(f"{DASHBOARD}/payouts")
    expect(page.get_by_text("Daily")).to_be_visible()
    expect(page.get_by_text("No payouts yet.")).to_be_visible()
    _check(page)

    page.goto(f"{DASHBOARD}/webhooks")
    page.get_by_role("link", name="http://127.0.0.1").first.click()
    expect(page.get_by_role("heading", name="Deliveries")).to_be_visible()
    expect(page.get_by_role("cell", name="Succeeded").first).to_be_visible()
    _check(page)

    page.goto(f"{DASHBOARD}/events")
    expect(page.get_by_role("cell", name="charge.refunded").first).to_be_visible()
    page.get_by_role("link", name=b.event_id).click()
    expect(page.get_by_role("heading", name="Payload")).to_be_visible()
    expect(page.get_by_label("Event payload")).to_contain_text(b.event_id)
    _check(page)


def _credit_transactions(client: httpx.Client, business: Business) -> list[dict[str, Any]]:
    url = f"{API}/customers/{business.customer_id}/balance-transactions"
    return list(ok(client.get(url, headers=business.merchant.auth))["data"])


def test_a_credit_adjustment_submitted_twice_acts_once(
    page: Page, business: Business, client: httpx.Client
) -> None:
    before = len(_credit_transactions(client, business))
    page.goto(f"{DASHBOARD}/customers/{business.customer_id}")
    page.get_by_label("Credit (add to the balance)").check()
    page.get_by_label("Amount").fill("12.50")
    page.get_by_label("Currency").fill("usd")
    page.get_by_label("Description").fill("Goodwill for the outage")
    form = page.locator("form", has=page.get_by_role("button", name="Adjust balance"))
    fields: dict[str, str | float | bool] = form.evaluate("f => Object.fromEntries(new FormData(f))")
    action = form.get_attribute("action")
    assert action is not None
    # The same rendered form posted twice (what a double click sends), then through its button: one
    # adjustment, every answer back to the customer's page.
    for _ in range(2):
        answer = page.request.post(action, form=fields, max_redirects=0)
        assert answer.status == 303, answer.status
    page.get_by_role("button", name="Adjust balance").click()
    expect(page.get_by_role("status")).to_contain_text("The credit balance was adjusted.")
    after = _credit_transactions(client, business)
    assert len(after) == before + 1
    assert (after[0]["amount_cents"], after[0]["description"]) == (1250, "Goodwill for the outage")
    expect(page.get_by_role("table", name="Credit transactions")).to_contain_text("$12.50")


def test_a_bad_amount_is_explained_and_changes_nothing(
    page: Page, business: Business, client: httpx.Client
) -> None:
    before = len(_credit_transactions(client, business))
    page.goto(f"{DASHBOARD}/customers/{business.customer_id}")
    page.get_by_label("Amount").fill("12.345")
    page.get_by_label("Currency").fill("usd")
    page.get_by_role("button", name="Adjust balance").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter an amount such as 5.00.")
    assert len(_credit_transactions(client, business)) == before


def test_resend_delivers_the_event_again(page: Page, business: Business, receiver: WebhookReceiver) -> None:
    def received() -> int:
        with receiver.lock:
            return [d.event["id"] for d in receiver.deliveries].count(business.event_id)

    before = _wait_for(received, "the first delivery of the event")
    page.goto(f"{DASHBOARD}/events/{business.event_id}")
    page.get_by_role("button", name="Resend").click()
    expect(page.get_by_role("status")).to_contain_text("queued for delivery again")
    _wait_for(lambda: received() > before, "the resent delivery at the endpoint")


def test_cancel_asks_for_confirmation_then_cancels(
    page: Page, business: Business, client: httpx.Client
) -> None:
    page.goto(f"{DASHBOARD}/subscriptions/{business.subscription_id}")
    page.get_by_role("link", name="Cancel subscription").click()
    expect(page.get_by_role("heading", name="Cancel subscription")).to_be_visible()
    _check(page)
    page.get_by_label("Now", exact=True).check()
    page.get_by_role("button", name="Confirm cancellation").click()
    expect(page.get_by_role("status")).to_contain_text("The subscription was canceled.")
    sub = ok(client.get(f"{API}/subscriptions/{business.subscription_id}", headers=business.merchant.auth))
    assert sub["status"] == "CANCELED"
    expect(page.get_by_role("link", name="Cancel subscription")).to_have_count(0)


def test_lists_page_by_twenty_and_empty_lists_say_what_to_do(
    browser: Browser, api: httpx.Client, gateway_process: Any
) -> None:
    """A merchant of its own, so the shared one's lists keep their first page."""
    merchant = sign_up(api)
    made = [
        ok(api.post(f"{API}/customers", json={"email": f"p{n}@example.com"}, headers=merchant.auth), 201)
        for n in range(21)
    ]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=gateway_process.base_url)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        browser_sign_in(page, gateway_process.base_url, merchant.email, PASSWORD)
        page.goto(f"{DASHBOARD}/customers")
        rows = page.get_by_role("table", name="Customers").locator("tbody tr")
        expect(rows).to_have_count(20)
        page.get_by_role("navigation", name="Pages").get_by_role("link", name="Next page").click()
        expect(rows).to_have_count(1)
        first_page_ids = {c["id"] for c in made}
        assert rows.first.get_by_role("link").inner_text() in first_page_ids
        expect(page.get_by_role("link", name="First page")).to_be_visible()
        expect(page.get_by_role("link", name="Next page")).to_have_count(0)

        page.goto(f"{DASHBOARD}/subscriptions")
        expect(
            page.get_by_text("No subscriptions yet. Create a price, then POST /v1/subscriptions")
        ).to_be_visible()
        page.goto(f"{DASHBOARD}/webhooks")
        expect(page.get_by_text("No webhook endpoints. Add one with POST /v1/webhooks")).to_be_visible()
        _accessible(page)
    finally:
        context.close()
