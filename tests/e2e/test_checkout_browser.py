"""The hosted checkout in a real browser (Debian's Chromium via Playwright) against the real processes."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.e2e.api_client import API, Merchant, authorized_charge, create_charge, sign_up
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, MerchantPages
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

NEXT_YEAR = str(datetime.date.today().year + 1)


@pytest.fixture(scope="module")
def merchant_site() -> Iterator[str]:
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
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure_browser.sh (make test does)")
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
    problems: list[str] = []  # CSP violations and script errors show up here
    opened.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    opened.on("pageerror", lambda err: problems.append(str(err)))
    yield opened
    context.close()
    assert problems == []


@pytest.fixture
def no_js_page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False)
    context.set_default_timeout(WAIT_MS)
    yield context.new_page()
    context.close()


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


def _charge(client: httpx.Client, merchant: Merchant, site: str, **overrides: Any) -> dict[str, Any]:
    return create_charge(
        client,
        merchant,
        amount=4999,
        currency="usd",
        description="Trail backpack, 38 L",
        return_url=f"{site}/return",
        cancel_url=f"{site}/cancel",
        **overrides,
    )


def _status(client: httpx.Client, merchant: Merchant, charge_id: str) -> str:
    return str(client.get(f"{API}/charges/{charge_id}", headers=merchant.auth).json()["status"])


def _fill_card(page: Page, number: str) -> None:
    page.get_by_label("Card number").fill(number)
    page.get_by_label("Expiry month").fill("12")
    page.get_by_label("Expiry year").fill(NEXT_YEAR)
    page.get_by_label("CVC").fill("123")


def test_page_shows_merchant_amount_and_test_banner_with_strict_headers(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    page: Page,
    tmp_path: Path,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    response = page.goto(charge["checkout_url"])
    assert response is not None and response.status == 200
    headers = response.headers
    assert headers["content-security-policy"].startswith(
        "default-src 'none'; script-src 'self'; style-src 'self';"
    )
    assert f"form-action 'self' {merchant_site};" in headers["content-security-policy"]
    assert headers["cache-control"] == "no-store" and headers["x-frame-options"] == "DENY"
    assert page.get_by_role("heading", level=1).inner_text() == "Pay Acme Outfitters"
    assert page.locator(".amount").inner_text() == "$49.99"
    assert page.get_by_text("Trail backpack, 38 L").is_visible()
    assert page.get_by_role("note").filter(has_text="Test mode").is_visible()
    brand = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--brand').trim()")
    assert brand == "#5b21b6"
    page.screenshot(path=str(tmp_path / "checkout.png"), full_page=True)
    assert (tmp_path / "checkout.png").stat().st_size > 10_000


def test_pay_with_a_card_lands_on_the_return_url(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    page.goto(charge["checkout_url"])
    _fill_card(page, "4242 4242 4242 4242")
    page.get_by_role("button", name="Pay $49.99").click()
    page.wait_for_url(f"{merchant_site}/return")
    assert page.url == f"{merchant_site}/return"
    assert _status(client, merchant, charge["id"]) == "authorized"


def test_pay_with_paypal(client: httpx.Client, merchant: Merchant, merchant_site: str, page: Page) -> None:
    charge = _charge(client, merchant, merchant_site)
    page.goto(charge["checkout_url"])
    page.get_by_label("PayPal", exact=True).check()
    assert page.get_by_label("Card number").is_hidden()
    page.get_by_label("PayPal e-mail").fill("success@sandbox.paypal.test")
    page.get_by_role("button", name="Pay $49.99").click()
    page.wait_for_url(f"{merchant_site}/return")
    assert _status(client, merchant, charge["id"]) == "authorized"


def test_insufficient_funds_shows_the_failed_state(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    page.goto(charge["checkout_url"])
    _fill_card(page, "4000000000009995")
    page.get_by_role("button", name="Pay $49.99").click()
    failed = page.locator("#pc-failed")
    failed.wait_for(state="visible")
    assert "insufficient funds" in failed.inner_text()
    assert page.get_by_role("heading", name="Payment failed").is_visible()
    assert page.locator("#pay-form").is_hidden()
    assert failed.get_by_role("link").get_attribute("href") == f"{merchant_site}/cancel"
    assert _status(client, merchant, charge["id"]) == "failed"


def test_client_side_validation_stops_a_bad_card(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    page.goto(charge["checkout_url"])
    page.get_by_label("Card number").fill("4242")
    page.get_by_label("Expiry month").fill("13")
    page.get_by_role("button", name="Pay $49.99").click()
    assert page.locator("#card_number-error").inner_text() == "A card number has 13 to 19 digits."
    assert page.locator("#exp_month-error").is_visible() and page.locator("#cvc-error").is_visible()
    assert page.get_by_label("Card number").get_attribute("aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "card_number"
    assert _status(client, merchant, charge["id"]) == "pending"


def test_cancel_lands_on_the_cancel_url(
    client: httpx.Client, merchant: Merchant, merchant_site: str, page: Page
) -> None:
    charge = _charge(client, merchant, merchant_site)
    page.goto(charge["checkout_url"])
    page.get_by_role("button", name="Cancel and return to Acme Outfitters").click()
    page.wait_for_url(f"{merchant_site}/cancel")
    assert _status(client, merchant, charge["id"]) == "pending"


def test_an_already_paid_charge_has_its_own_page(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    page: Page,
) -> None:
    charge = authorized_charge(
        client, merchant, return_url=f"{merchant_site}/return", cancel_url=f"{merchant_site}/cancel"
    )
    response = page.goto(charge["checkout_url"])
    assert response is not None and response.status == 200
    assert page.get_by_role("heading", level=1).inner_text() == "Payment already received"
    assert page.get_by_text("This payment has already been processed").is_visible()
    assert page.locator("#pay-form").count() == 0
    page.get_by_role("link", name="Return to Acme Outfitters").click()
    page.wait_for_url(f"{merchant_site}/return")


def test_unknown_charge_is_a_404_page(gateway_process: RunningProcess, no_js_page: Page) -> None:
    # Chromium logs the document's own 404 as a console error, so not the `page` fixture here.
    response = no_js_page.goto(f"{gateway_process.base_url}/checkout/ch_{'z' * 32}")
    assert response is not None and response.status == 404
    assert no_js_page.get_by_role("heading", level=1).inner_text() == "Checkout not found"


def test_without_javascript_the_form_still_pays(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    no_js_page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    no_js_page.goto(charge["checkout_url"])
    _fill_card(no_js_page, "4242424242424242")
    no_js_page.get_by_role("button", name="Pay $49.99").click()
    no_js_page.wait_for_url(f"{merchant_site}/return")  # the 303 passes the CSP form-action
    assert _status(client, merchant, charge["id"]) == "authorized"


def test_without_javascript_declines_and_errors_render_pages(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    no_js_page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    no_js_page.goto(charge["checkout_url"])
    _fill_card(no_js_page, "4242424242424242")
    no_js_page.get_by_label("CVC").fill("1")
    no_js_page.get_by_role("button", name="Pay $49.99").click()
    no_js_page.wait_for_load_state()
    assert "CVC must be 3 or 4 digits" in no_js_page.locator("#cvc-error").inner_text()
    _fill_card(no_js_page, "4000000000000002")
    no_js_page.get_by_role("button", name="Pay $49.99").click()
    no_js_page.get_by_role("heading", name="Payment failed").wait_for()
    assert no_js_page.get_by_text("Your card was declined.").is_visible()
    assert _status(client, merchant, charge["id"]) == "failed"


def test_without_javascript_cancel_redirects(
    client: httpx.Client,
    merchant: Merchant,
    merchant_site: str,
    no_js_page: Page,
) -> None:
    charge = _charge(client, merchant, merchant_site)
    no_js_page.goto(charge["checkout_url"])
    no_js_page.get_by_role("button", name="Cancel and return to Acme Outfitters").click()
    no_js_page.wait_for_url(f"{merchant_site}/cancel")


def test_form_posts_over_plain_http(client: httpx.Client, merchant: Merchant, merchant_site: str) -> None:
    charge = _charge(client, merchant, merchant_site)
    form = {
        "payment_method": "card",
        "card_number": "4242 4242 4242 4242",
        "exp_month": "12",
        "exp_year": NEXT_YEAR,
        "cvc": "123",
    }
    paid = client.post(f"/checkout/{charge['id']}", data=form)
    assert (paid.status_code, paid.headers["location"]) == (303, f"{merchant_site}/return")
    again = client.post(f"/checkout/{charge['id']}", data=form)
    assert again.status_code == 200 and "Payment already received" in again.text
    json_page = client.get(f"/checkout/{charge['id']}", headers={"Accept": "application/json"})
    assert json_page.json()["errorMessage"] == "This payment has already been processed"
