"""Response headers: the hosted pages defend themselves in the browser, and no response ever sets a cookie.

Every HTML page the checkout serves (payment page, state pages, the 404 page, the no-JS form's answers)
carries a CSP that forbids framing and inline code, nosniff, a referrer policy and no-store. Every
response of the API, errors included, carries nosniff and no-store (answers hold secret keys and
webhook secrets, which no cache may keep), and none of them, pages included, sets a cookie: credentials
travel only in the Authorization header, so there is nothing for CSRF to ride on.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import API, CARD_OK, Merchant, authorized_charge, create_charge, pay, sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def http(gateway_process: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_process.base_url, timeout=15.0) as client:
        yield client


@pytest.fixture(scope="module")
def merchant(http: httpx.Client) -> Merchant:
    return sign_up(http)


def _directives(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for directive in filter(None, (part.strip() for part in policy.split(";"))):
        name, *values = directive.split()
        parsed[name.lower()] = values
    return parsed


def assert_page_headers(response: httpx.Response) -> None:
    headers = response.headers
    policy = _directives(headers.get("Content-Security-Policy", ""))
    assert policy.get("frame-ancestors") == ["'none'"], headers
    assert policy.get("default-src") == ["'none'"]
    for source in ("script-src", "style-src"):
        assert "'unsafe-inline'" not in policy.get(source, ["'unsafe-inline'"]), policy
        assert "'unsafe-eval'" not in policy.get(source, [])
    assert policy.get("base-uri") == ["'none'"]
    assert "form-action" in policy and "*" not in policy["form-action"]
    assert headers.get("X-Frame-Options") == "DENY"
    assert headers.get("X-Content-Type-Options") == "nosniff"
    assert headers.get("Referrer-Policy") in ("no-referrer", "strict-origin", "same-origin")
    assert "no-store" in headers.get("Cache-Control", "")
    assert "set-cookie" not in headers


def test_every_hosted_page_sends_the_security_headers(http: httpx.Client, merchant: Merchant) -> None:
    payable = create_charge(http, merchant)
    page = http.get(f"/checkout/{payable['id']}", headers=HTML)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    pages = {"payment page": page}
    pages["404 page"] = http.get(f"/checkout/ch_{'q' * 32}", headers=HTML)
    pages["malformed id page"] = http.get("/checkout/..%2F..%2Fetc%2Fpasswd", headers=HTML)
    paid = authorized_charge(http, merchant)
    pages["already paid page"] = http.get(f"/checkout/{paid['id']}", headers=HTML)
    form = {
        "payment_method": "card",
        "card_number": "4242 4242 4242 4242",
        "exp_month": "12",
        "exp_year": "99",
    }
    pages["form with an error"] = http.post(f"/checkout/{payable['id']}", data={**form, "exp_month": "x"})
    pages["form declined"] = http.post(
        f"/checkout/{create_charge(http, merchant)['id']}",
        data={**form, "card_number": "4000000000000002", "cvc": "123"},
    )
    pages["form paid (303)"] = http.post(f"/checkout/{payable['id']}", data={**form, "cvc": "123"})
    pages["form cancel (303)"] = http.post(
        f"/checkout/{create_charge(http, merchant)['id']}/cancel", data={"x": "1"}
    )
    for name, response in pages.items():
        assert response.status_code in (200, 303, 400, 404), (name, response.status_code)
        assert response.headers["content-type"].startswith("text/html") or response.status_code == 303, name
        try:
            assert_page_headers(response)
        except AssertionError as failure:
            raise AssertionError(f"{name}: {failure}") from None
    assert pages["form paid (303)"].status_code == 303
    assert pages["404 page"].status_code == 404


def test_the_page_assets_are_nosniff(http: httpx.Client, merchant: Merchant) -> None:
    page = http.get(f"/checkout/{create_charge(http, merchant)['id']}", headers=HTML).text
    assets = sorted({part.split('"')[0] for part in page.split('"/checkout-assets/')[1:]})
    assert assets, "the page links no asset"
    for asset in assets:
        response = http.get(f"/checkout-assets/{asset}")
        assert response.status_code == 200, asset
        assert response.headers.get("X-Content-Type-Options") == "nosniff"
        assert "set-cookie" not in response.headers


def test_no_response_sets_a_cookie_and_api_answers_are_not_cacheable(http: httpx.Client) -> None:
    merchant = sign_up(http)
    charge = create_charge(http, merchant)
    responses = {
        "sign-up": http.post(
            "/api/v1/merchants", json={"email": "c@example.com", "password": "long password"}
        ),
        "login refused": http.post(
            "/api/v1/auth/token", json={"email": "c@example.com", "password": "nope nope"}
        ),
        "login": http.post("/api/v1/auth/token", json={"email": merchant.email, "password": "correct horse"}),
        "profile": http.get("/api/v1/merchants/me", headers=merchant.jwt),
        "key created": http.post(f"{API}/keys", json={"environment": "test"}, headers=merchant.jwt),
        "keys": http.get(f"{API}/keys", headers=merchant.jwt),
        "charge created": http.post(
            f"{API}/charges",
            json={"amount": 100, "currency": "usd", "return_url": "https://a.example/"},
            headers=merchant.auth,
        ),
        "charge": http.get(f"{API}/charges/{charge['id']}", headers=merchant.auth),
        "charges": http.get("/v1/charges", headers=merchant.auth),
        "webhook created": http.post(
            f"{API}/webhooks", json={"url": "http://localhost:9/h", "events": ["*"]}, headers=merchant.auth
        ),
        "events": http.get(f"{API}/events", headers=merchant.auth),
        "checkout data": http.get(f"/checkout/{charge['id']}"),
        "checkout paid": pay(http, charge["id"], CARD_OK),
        "checkout cancel": http.post(f"/checkout/{create_charge(http, merchant)['id']}/cancel"),
        "no credential": http.get(f"{API}/charges"),
        "bad credential": http.get(f"{API}/charges", headers={"Authorization": "Bearer sk_test_" + "x" * 32}),
        "unknown charge": http.get(f"{API}/charges/ch_{'x' * 32}", headers=merchant.auth),
        "invalid body": http.post(
            f"{API}/charges", content=b"{", headers={**merchant.auth, "Content-Type": "application/json"}
        ),
        "unknown route": http.get("/api/v1/connect/nothing-here"),
        "wrong method": http.put(f"{API}/charges"),
        "health": http.get("/healthz"),
    }
    for name, response in responses.items():
        assert "set-cookie" not in response.headers, name
        assert response.headers.get("X-Content-Type-Options") == "nosniff", (name, dict(response.headers))
        assert "no-store" in response.headers.get("Cache-Control", ""), (name, dict(response.headers))
    assert responses["key created"].status_code == 201 and responses["webhook created"].status_code == 201
    assert http.cookies == httpx.Cookies()
