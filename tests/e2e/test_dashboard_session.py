"""The dashboard's sign-in, session cookie, anti-forgery token, Test mode switch and sign-out, over
plain HTTP against the real processes (DESIGN §10.7)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import PASSWORD, Merchant
from tests.support.dashboard import BASE, hidden_fields, sign_in
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

NAV = (
    "Home", "Payments", "Customers", "Subscriptions", "Invoices", "Balance",
    "Payouts", "Webhooks", "Events", "Developers", "Settings",
)  # fmt: skip


@pytest.fixture
def browser_like(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as client:
        yield client


def test_a_page_without_a_session_redirects_to_sign_in(browser_like: httpx.Client) -> None:
    for path in (BASE, f"{BASE}/payments", f"{BASE}/settings"):
        response = browser_like.get(path)
        assert response.status_code == 303
        assert response.headers["location"].startswith(f"{BASE}/sign-in?next=")
    # A form posted without a session does nothing and says so (no redirect that hides it).
    posted = browser_like.post(f"{BASE}/settings/reset-test-data", data={"csrf_token": "x"})
    assert posted.status_code == 401 and "Your session has ended" in posted.text
    page = browser_like.get(f"{BASE}/sign-in")
    assert page.status_code == 200
    assert '<label for="email">Email</label>' in page.text
    assert '<label for="password">Password</label>' in page.text
    assert ">Sign in</button>" in page.text
    csp = page.headers["content-security-policy"]
    assert "script-src 'none'" in csp and "default-src 'none'" in csp and "form-action 'self'" in csp
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["x-frame-options"] == "DENY"


def test_a_wrong_password_gives_no_session(browser_like: httpx.Client, merchant: Merchant) -> None:
    response = sign_in(browser_like, merchant.email, "not the password")
    assert response.status_code in (400, 401)
    assert "pc_dashboard=" not in response.headers.get("set-cookie", "")
    assert browser_like.get(BASE).status_code == 303


def test_a_sign_in_post_without_its_form_token_is_refused(
    browser_like: httpx.Client, merchant: Merchant
) -> None:
    posted = browser_like.post(
        f"{BASE}/sign-in", data={"email": merchant.email, "password": PASSWORD, "sign_in_token": "x"}
    )
    assert posted.status_code == 403
    assert "pc_dashboard=" not in posted.headers.get("set-cookie", "")


def test_sign_in_switch_mode_and_sign_out(browser_like: httpx.Client, merchant: Merchant) -> None:
    signed = sign_in(browser_like, merchant.email, PASSWORD)
    assert signed.status_code == 303 and signed.headers["location"] == BASE
    cookie = next(c for c in signed.headers.get_list("set-cookie") if c.startswith("pc_dashboard="))
    flags = cookie.lower()
    assert "httponly" in flags and "samesite=strict" in flags and "path=/dashboard" in flags
    assert "secure" not in flags  # plain HTTP on loopback; Secure under TLS
    home = browser_like.get(BASE)
    assert home.status_code == 200
    for label in NAV:
        assert f">{label}</a>" in home.text
    assert 'role="switch" aria-checked="true"' in home.text and "Test mode" in home.text

    # The switch needs the session's anti-forgery token.
    forged = browser_like.post(f"{BASE}/mode", data={"next": BASE})
    assert forged.status_code == 403
    fields = hidden_fields(home.text, f"{BASE}/mode")
    switched = browser_like.post(f"{BASE}/mode", data=fields)
    assert switched.status_code == 303
    live = browser_like.get(BASE)
    assert 'role="switch" aria-checked="false"' in live.text

    session_cookie = browser_like.cookies.get("pc_dashboard")
    out = browser_like.post(f"{BASE}/sign-out", data=hidden_fields(live.text, f"{BASE}/sign-out"))
    assert out.status_code == 303
    # The session ended on the server: replaying the old cookie leads to the sign-in page.
    with httpx.Client(base_url=str(browser_like.base_url), timeout=30.0) as replay:
        replay.cookies.set("pc_dashboard", session_cookie or "", path=BASE)
        assert replay.get(BASE).status_code == 303


def test_a_password_change_ends_the_session(browser_like: httpx.Client, http: httpx.Client) -> None:
    from tests.e2e.api_client import sign_up

    merchant = sign_up(http)
    assert sign_in(browser_like, merchant.email, PASSWORD).status_code == 303
    assert browser_like.get(BASE).status_code == 200
    changed = http.post(
        "/api/v1/merchants/me/password",
        json={"current_password": PASSWORD, "new_password": "another long pass"},
        headers=merchant.jwt,
    )
    assert changed.status_code == 200, changed.text
    assert browser_like.get(BASE).status_code == 303
