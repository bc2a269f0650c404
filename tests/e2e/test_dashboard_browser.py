"""The merchant dashboard in a real browser (Debian's Chromium via Playwright) against the real
processes (DESIGN §10.7): sign-in, every page of this branch showing data created through the API,
Capture / Refund / Void through the buttons (checked through the API), a double submit that refunds
once, the Test mode switch, sign-out ending the session, 390 px without horizontal scroll, no request
leaving the host, and an axe-core scan without serious or critical violations.

One browser for the module and one merchant whose data every test reads; tests that change shared state
make their own charges.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from tests.e2e.api_client import API, PASSWORD, Merchant, authorized_charge, create_charge, sign_up
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS
from tests.support.dashboard import BASE, browser_sign_in
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

NAV = (
    "Home", "Payments", "Customers", "Subscriptions", "Invoices", "Balance",
    "Payouts", "Webhooks", "Events", "Developers", "Settings",
)  # fmt: skip


@dataclass
class Shop:
    """The module's merchant and the charges its tests read."""

    merchant: Merchant
    captured: dict[str, Any]
    authorized: dict[str, Any]
    pending: dict[str, Any]


def _capture(http: httpx.Client, merchant: Merchant, charge_id: str) -> None:
    captured = http.post(f"{API}/charges/{charge_id}/capture", json={}, headers=merchant.auth)
    assert captured.status_code == 200, captured.text


def _charge(http: httpx.Client, merchant: Merchant, charge_id: str) -> dict[str, Any]:
    response = http.get(f"{API}/charges/{charge_id}", headers=merchant.auth)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture(scope="module")
def shop(http: httpx.Client) -> Shop:
    merchant = sign_up(http)
    captured = authorized_charge(http, merchant, amount=2_500, customer_email="Buyer@Example.com")
    _capture(http, merchant, captured["id"])
    authorized = authorized_charge(http, merchant, amount=1_200, description="Blue mug")
    pending = create_charge(http, merchant, amount=700)
    return Shop(merchant, captured, authorized, pending)


@pytest.fixture(scope="module")
def base_url(unthrottled_gateway: RunningProcess) -> str:
    return unthrottled_gateway.base_url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Tab:
    page: Page
    context: BrowserContext
    requests: list[str]


def _open(browser: Browser, width: int = 1280) -> tuple[Tab, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    problems: list[str] = []  # CSP violations show up as console errors
    requests: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("request", lambda req: requests.append(req.url))
    return Tab(page, context, requests), problems


@pytest.fixture
def tab(browser: Browser, base_url: str, shop: Shop) -> Iterator[Tab]:
    """A signed-in page of the module's merchant."""
    opened, problems = _open(browser)
    browser_sign_in(opened.page, base_url, shop.merchant.email, PASSWORD)
    yield opened
    opened.context.close()
    assert problems == []


def test_sign_in_lands_on_home_with_nav_balance_and_volume_chart(tab: Tab, base_url: str) -> None:
    page = tab.page
    nav = page.get_by_role("navigation", name="Dashboard")
    for label in NAV:
        expect(nav.get_by_role("link", name=label, exact=True)).to_be_visible()
    expect(page.get_by_role("switch", name="Test mode")).to_have_attribute("aria-checked", "true")
    expect(page.get_by_text("You are viewing test data")).to_be_visible()
    # The captured $25.00 is in the balance (pending until it settles) and in today's bar.
    expect(page.get_by_role("heading", name="Balance")).to_be_visible()
    expect(page.locator(".figures")).to_contain_text("$")
    chart = page.get_by_role("img", name="Captured USD per day")
    expect(chart).to_be_visible()
    expect(page.get_by_text("USD: $25.00 captured")).to_be_visible()


def test_payments_list_filters_and_searches(tab: Tab, base_url: str, shop: Shop) -> None:
    page = tab.page
    page.get_by_role("link", name="Payments", exact=True).click()
    rows = page.locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(page.get_by_text("3 payments")).to_be_visible()
    page.get_by_label("Status").select_option("authorized")
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(shop.authorized["id"])
    expect(rows.first).to_contain_text("$12.00")

    page.get_by_label("Status").select_option("")
    page.get_by_label("Search").fill("buyer@example.COM")
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(shop.captured["id"])

    page.get_by_label("Search").fill(shop.pending["id"])
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("$7.00")

    page.get_by_label("Search").fill("nobody@example.com")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("No payments match")).to_be_visible()


def test_capture_refund_and_void_through_the_buttons(
    tab: Tab, base_url: str, http: httpx.Client, shop: Shop
) -> None:
    shop_merchant = shop.merchant
    to_capture = authorized_charge(http, shop_merchant, amount=4_000)
    to_void = authorized_charge(http, shop_merchant, amount=900)
    page = tab.page

    page.goto(f"{base_url}{BASE}/payments/{to_capture['id']}")
    expect(page.get_by_role("button", name="Refund")).to_have_count(0)
    page.get_by_role("button", name="Capture").click()
    expect(page.get_by_text("The payment was captured.")).to_be_visible()
    assert _charge(http, shop_merchant, to_capture["id"])["status"] == "captured"

    page.get_by_label("Amount").fill("5.00")
    page.get_by_role("button", name="Refund").click()
    expect(page.get_by_text("The refund was created.")).to_be_visible()
    refunded = _charge(http, shop_merchant, to_capture["id"])
    assert refunded["amount_refunded"] == 500 and refunded["status"] == "partially_refunded"
    expect(page.get_by_role("region", name="Refunds")).to_contain_text("$5.00")
    expect(page.get_by_role("region", name="Events")).to_contain_text("charge.refunded")

    page.get_by_label("Amount").fill("5.001")
    page.get_by_role("button", name="Refund").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter an amount such as 5.00.")
    page.get_by_label("Amount").fill("999.00")
    page.get_by_role("button", name="Refund").click()
    expect(page.get_by_role("alert")).to_be_visible()  # the core's own refusal, nothing changed
    assert _charge(http, shop_merchant, to_capture["id"])["amount_refunded"] == 500

    page.goto(f"{base_url}{BASE}/payments/{to_void['id']}")
    page.get_by_role("button", name="Void").click()
    expect(page.get_by_text("The payment was voided.")).to_be_visible()
    assert _charge(http, shop_merchant, to_void["id"])["status"] == "voided"
    expect(page.get_by_role("button", name="Capture")).to_have_count(0)


def test_a_double_submit_refunds_once(tab: Tab, base_url: str, http: httpx.Client, shop: Shop) -> None:
    merchant = shop.merchant
    charge = authorized_charge(http, merchant, amount=3_000)
    _capture(http, merchant, charge["id"])
    page = tab.page
    page.goto(f"{base_url}{BASE}/payments/{charge['id']}")
    form = page.locator(f'form[action="{BASE}/payments/{charge["id"]}/refund"]')
    fields = {
        name: form.locator(f'input[name="{name}"]').input_value()
        for name in ("csrf_token", "idempotency_key")
    }
    # The same rendered form posted twice (a double click, a resend): one refund.
    for _ in range(2):
        posted = page.request.post(
            f"{base_url}{BASE}/payments/{charge['id']}/refund",
            form={**fields, "amount": "10.00"},
            max_redirects=0,
        )
        assert posted.status == 303
    after = _charge(http, merchant, charge["id"])
    assert after["amount_refunded"] == 1_000
    assert len(after["refunds"]) == 1


def test_a_post_without_the_anti_forgery_token_changes_nothing(
    tab: Tab, base_url: str, http: httpx.Client, shop: Shop
) -> None:
    merchant = shop.merchant
    charge = authorized_charge(http, merchant, amount=1_000)
    posted = tab.page.request.post(
        f"{base_url}{BASE}/payments/{charge['id']}/void", form={"idempotency_key": "k1"}, max_redirects=0
    )
    assert posted.status == 403
    assert _charge(http, merchant, charge["id"])["status"] == "authorized"


def test_the_test_mode_switch_scopes_every_page(tab: Tab, base_url: str) -> None:
    page = tab.page
    page.goto(f"{base_url}{BASE}/payments")
    expect(page.locator("tbody tr").first).to_be_visible()
    switch = page.get_by_role("switch", name="Test mode")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(page.get_by_text("You are viewing test data")).to_have_count(0)
    expect(page.get_by_text("No payments yet")).to_be_visible()  # LIVE has none
    page.get_by_role("link", name="Settings", exact=True).click()
    expect(page.get_by_role("heading", name="Sandbox")).to_have_count(0)
    page.get_by_role("switch", name="Test mode").click()
    expect(page.get_by_role("switch", name="Test mode")).to_have_attribute("aria-checked", "true")
    expect(page.get_by_role("heading", name="Sandbox")).to_be_visible()


def test_developers_create_a_key_shown_once_and_revoke_it(
    tab: Tab, base_url: str, http: httpx.Client
) -> None:
    page = tab.page
    page.get_by_role("link", name="Developers", exact=True).click()
    page.get_by_label("Name").fill("dashboard-made")
    page.get_by_role("button", name="Create key").click()
    secret = page.locator("#new-secret-key").inner_text().strip()
    assert secret.startswith("sk_test_")
    assert http.get(f"{API}/charges", headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    page.get_by_role("link", name="Developers", exact=True).click()
    expect(page.get_by_text(secret)).to_have_count(0)  # shown once
    page.get_by_role("button", name="Revoke dashboard-made").click()
    expect(page.get_by_text("The key was revoked.")).to_be_visible()
    _eventually_refused(http, secret)


def _eventually_refused(http: httpx.Client, secret: str) -> None:
    """The gateway that served the revoke evicted the key; others follow within their cache TTL."""
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if http.get(f"{API}/charges", headers={"Authorization": f"Bearer {secret}"}).status_code == 401:
            return
        time.sleep(0.2)
    raise AssertionError("the revoked key still works")


def test_settings_profile_payout_account_clock_and_reset(
    browser: Browser, base_url: str, http: httpx.Client
) -> None:
    merchant = sign_up(http)  # its own merchant: the reset deletes its test data
    charge = create_charge(http, merchant, amount=800)
    opened, problems = _open(browser)
    page = opened.page
    browser_sign_in(page, base_url, merchant.email, PASSWORD)
    page.get_by_role("link", name="Settings", exact=True).click()
    page.get_by_label("Business name").fill("Blue Mug Co")
    page.get_by_label("Brand colour").fill("#5b21b6")
    page.get_by_role("button", name="Save profile").click()
    expect(page.get_by_text("Your profile was saved.")).to_be_visible()
    me = http.get("/api/v1/merchants/me", headers=merchant.jwt).json()
    assert me["business_name"] == "Blue Mug Co" and me["brand_color"] == "#5b21b6"

    page.get_by_label("New account number").fill("000123456789")
    page.get_by_label("Your password").fill("not my password")
    page.get_by_role("button", name="Change payout account").click()
    expect(page.get_by_role("alert")).to_contain_text("password")
    expect(page.get_by_text("No payout account yet.")).to_be_visible()
    page.get_by_label("New account number").fill("000123456789")
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Change payout account").click()
    expect(page.get_by_text("Your payout account was changed.")).to_be_visible()
    expect(page.get_by_text("Current account ending in 6789.")).to_be_visible()

    clock = http.get(f"{API}/test_helpers/clock", headers=merchant.auth).json()
    page.get_by_label("Days").fill("2")
    page.get_by_role("button", name="Advance clock").click()
    expect(page.get_by_text("The sandbox clock moved forward.")).to_be_visible()
    moved = http.get(f"{API}/test_helpers/clock", headers=merchant.auth).json()
    assert moved["now"] - clock["now"] >= 2 * 86_400

    page.get_by_role("button", name="Reset test data").click()
    expect(page.get_by_text("Your test data was reset.")).to_be_visible()
    gone = http.get(f"{API}/charges/{charge['id']}", headers=merchant.auth)
    assert gone.status_code in (401, 404)  # the charge (and the test key with it, if reset) is gone
    opened.context.close()
    assert problems == []


def test_sign_out_ends_the_session_on_the_server(browser: Browser, base_url: str, shop: Shop) -> None:
    opened, _ = _open(browser)
    browser_sign_in(opened.page, base_url, shop.merchant.email, PASSWORD)
    cookies = opened.context.cookies()
    opened.page.get_by_role("button", name="Sign out").click()
    expect(opened.page.get_by_text("You are signed out.")).to_be_visible()
    opened.context.close()
    replay, _ = _open(browser)
    replay.context.add_cookies(cookies)  # type: ignore[arg-type]
    replay.page.goto(f"{base_url}{BASE}/payments")
    expect(replay.page.get_by_role("button", name="Sign in")).to_be_visible()
    replay.context.close()


def _pages(base_url: str, shop: Shop) -> list[str]:
    return [
        f"{base_url}{BASE}",
        f"{base_url}{BASE}/payments",
        f"{base_url}{BASE}/payments/{shop.captured['id']}",
        f"{base_url}{BASE}/payments/{shop.authorized['id']}",
        f"{base_url}{BASE}/developers",
        f"{base_url}{BASE}/settings",
    ]


def test_390px_wide_without_horizontal_scroll_and_no_request_leaves_the_host(
    browser: Browser, base_url: str, shop: Shop
) -> None:
    opened, problems = _open(browser, width=390)
    page = opened.page
    page.goto(f"{base_url}{BASE}/sign-in")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    browser_sign_in(page, base_url, shop.merchant.email, PASSWORD)
    for url in _pages(base_url, shop):
        page.goto(url)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"{url} scrolls sideways ({wide} px)"
    hosts = {urlsplit(u).netloc for u in opened.requests if not u.startswith("data:")}
    assert hosts == {urlsplit(base_url).netloc}
    opened.context.close()
    assert problems == []


def test_no_serious_or_critical_accessibility_violation(browser: Browser, base_url: str, shop: Shop) -> None:
    opened, _ = _open(browser)
    page = opened.page
    axe = Axe()
    found: dict[str, list[str]] = {}

    def scan(url: str) -> None:
        results = axe.run(page)
        bad = [v["id"] for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
        if bad:
            found[url] = bad

    page.goto(f"{base_url}{BASE}/sign-in")
    scan("sign-in")
    browser_sign_in(page, base_url, shop.merchant.email, PASSWORD)
    for url in _pages(base_url, shop):
        page.goto(url)
        scan(url)
    opened.context.close()
    assert found == {}
