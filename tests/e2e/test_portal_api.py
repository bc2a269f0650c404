"""The customer portal through the real gateway and core (DESIGN §9 "Portal"): the session a merchant
creates, the pages' safety headers, the two changes, an anti-forgery failure and an expired session
(the merchant's sandbox clock moved 61 minutes) that both change nothing."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, assert_error, sign_up
from tests.support.processes import RunningProcess
from tests.support.subscription_shop import ok, subscribed

pytestmark = pytest.mark.e2e

RETURN_URL = "https://shop.example/account"
JSON = dict[str, Any]
_FORM_TOKEN = re.compile(r'name="anti_forgery_token" value="([0-9a-f]{64})"')


@pytest.fixture
def client(unthrottled_gateway: RunningProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=unthrottled_gateway.base_url, timeout=30.0) as http:
        yield http


def portal_session(client: httpx.Client, merchant: Merchant, customer_id: str, **headers: str) -> JSON:
    body = {"customer_id": customer_id, "return_url": RETURN_URL}
    return dict(
        ok(client.post(f"{API}/portal-sessions", json=body, headers={**merchant.auth, **headers}), 201)
    )


def path_of(session: JSON) -> str:
    return urlsplit(session["url"]).path


def form_token(page: httpx.Response) -> str:
    found = _FORM_TOKEN.search(page.text)
    assert found is not None, page.text
    return found.group(1)


def subscription(client: httpx.Client, merchant: Merchant, subscription_id: str) -> JSON:
    return dict(ok(client.get(f"{API}/subscriptions/{subscription_id}", headers=merchant.auth)))


def test_a_session_is_created_for_one_hour_with_a_secret_url(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, _ = subscribed(client, merchant)
    key = {"Idempotency-Key": uuid.uuid4().hex}
    session = portal_session(client, merchant, customer_id, **key)
    assert session["id"].startswith("bps_") and session["object"] == "portal_session"
    assert (session["customer_id"], session["return_url"], session["livemode"]) == (
        customer_id,
        RETURN_URL,
        False,
    )
    assert session["expires_at"] - session["created"] == 3600
    assert re.fullmatch(r"/portal/[A-Za-z0-9_-]{43}", path_of(session))
    # A retry with the same key hands over the same (sealed, stored) answer; a new request a new token.
    assert portal_session(client, merchant, customer_id, **key) == session
    assert portal_session(client, merchant, customer_id)["url"] != session["url"]


def test_another_tenants_customer_is_404_and_bad_input_names_its_param(client: httpx.Client) -> None:
    merchant, other = sign_up(client), sign_up(client)
    customer_id, _ = subscribed(client, merchant)
    body = {"customer_id": customer_id, "return_url": RETURN_URL}
    response = client.post(f"{API}/portal-sessions", json=body, headers=other.auth)
    assert_error(response, 404, "resource_not_found", "resource_missing", "customer_id")
    response = client.post(f"{API}/portal-sessions", json={"customer_id": customer_id}, headers=merchant.auth)
    assert_error(response, 400, "invalid_request_error", "parameter_missing", "return_url")
    bad = {"customer_id": customer_id, "return_url": "javascript:alert(1)"}
    response = client.post(f"{API}/portal-sessions", json=bad, headers=merchant.auth)
    assert_error(response, 400, "invalid_request_error", "parameter_invalid", "return_url")
    response = client.post(f"{API}/portal-sessions", json={"return_url": RETURN_URL}, headers=merchant.auth)
    assert_error(response, 400, "invalid_request_error", "parameter_missing", "customer_id")


def test_pages_carry_a_strict_csp_and_are_never_cached(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, _ = subscribed(client, merchant)
    home = client.get(path_of(portal_session(client, merchant, customer_id)))
    expired = client.get("/portal/" + "A" * 43)
    for page in (home, expired):
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'none'" in csp and "form-action 'self'" in csp
        assert "frame-ancestors 'none'" in csp and "https://" not in csp.replace("img-src 'self' https:", "")
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["content-type"].startswith("text/html")
        assert "<script" not in page.text and "cdn" not in page.text.lower()
    assert home.status_code == 200 and expired.status_code == 404
    assert "Pro" in home.text and "Next invoice" in home.text and "ending in 4242" in home.text
    assert f'href="{RETURN_URL}"' in home.text
    assert "expired" in expired.text


def test_the_pages_cancel_at_period_end_and_show_an_invoice(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, subscription_id = subscribed(client, merchant)
    base = path_of(portal_session(client, merchant, customer_id))
    home = client.get(base)
    invoice_path = re.search(rf'href="({re.escape(base)}/invoices/si_[0-9a-f]{{32}})"', home.text)
    assert invoice_path is not None
    invoice = client.get(invoice_path.group(1))
    assert invoice.status_code == 200 and "Total" in invoice.text and "$30.00" in invoice.text
    confirm = client.get(f"{base}/subscriptions/{subscription_id}/cancel")
    assert confirm.status_code == 200 and "Cancel at period end" in confirm.text
    done = client.post(
        f"{base}/subscriptions/{subscription_id}/cancel", data={"anti_forgery_token": form_token(confirm)}
    )
    assert done.status_code == 303 and done.headers["location"] == f"{base}?notice=canceled"
    assert subscription(client, merchant, subscription_id)["cancel_at_period_end"] is True
    assert "canceled at the end of the current period" in client.get(done.headers["location"]).text


def test_a_wrong_anti_forgery_token_changes_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, subscription_id = subscribed(client, merchant)
    base = path_of(portal_session(client, merchant, customer_id))
    other = path_of(portal_session(client, merchant, customer_id))
    foreign = form_token(client.get(f"{other}/payment-method"))
    card = {"number": "4012888888881881", "exp_month": "12", "exp_year": "2099", "cvc": "123"}
    for token in ("", "0" * 64, foreign):
        cancel = client.post(
            f"{base}/subscriptions/{subscription_id}/cancel", data={"anti_forgery_token": token}
        )
        assert cancel.status_code == 403, cancel.text
        update = client.post(f"{base}/payment-method", data={"anti_forgery_token": token, **card})
        assert update.status_code == 403, update.text
    assert subscription(client, merchant, subscription_id)["cancel_at_period_end"] is False
    methods = ok(client.get(f"{API}/customers/{customer_id}/payment-methods", headers=merchant.auth))
    assert [m["card"]["last4"] for m in methods["data"]] == ["4242"]


def test_a_declined_card_is_explained_and_a_good_one_becomes_the_default(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, _ = subscribed(client, merchant)
    base = path_of(portal_session(client, merchant, customer_id))
    form = client.get(f"{base}/payment-method")
    assert "4000 0000 0000 9995" in form.text  # the test cards, in TEST
    token = form_token(form)
    declined = {
        "anti_forgery_token": token,
        "number": "4000000000009995",
        "exp_month": "12",
        "exp_year": "2099",
        "cvc": "123",
    }
    refused = client.post(f"{base}/payment-method", data=declined)
    assert refused.status_code == 200 and "insufficient funds" in refused.text  # a result, not an error
    good = {**declined, "number": "4012 8888 8888 1881"}
    saved = client.post(f"{base}/payment-method", data=good)
    assert saved.status_code == 303 and saved.headers["location"] == f"{base}?notice=card"
    customer = ok(client.get(f"{API}/customers/{customer_id}", headers=merchant.auth))
    methods = ok(client.get(f"{API}/customers/{customer_id}/payment-methods", headers=merchant.auth))
    default = next(m for m in methods["data"] if m["id"] == customer["default_payment_method"])
    assert default["card"]["last4"] == "1881"


def test_after_61_sandbox_minutes_the_link_has_expired_and_changes_nothing(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer_id, subscription_id = subscribed(client, merchant)
    base = path_of(portal_session(client, merchant, customer_id))
    token = form_token(client.get(f"{base}/subscriptions/{subscription_id}/cancel"))
    now = ok(client.get(f"{API}/test_helpers/clock", headers=merchant.auth))["now"]
    ok(client.post(f"{API}/test_helpers/clock/advance", json={"to": now + 61 * 60}, headers=merchant.auth))
    page = client.get(base)
    assert page.status_code == 404 and "expired" in page.text
    assert page.headers["cache-control"] == "no-store"
    cancel = client.post(f"{base}/subscriptions/{subscription_id}/cancel", data={"anti_forgery_token": token})
    assert cancel.status_code == 404 and "expired" in cancel.text
    assert subscription(client, merchant, subscription_id)["cancel_at_period_end"] is False


_SUBMISSION = re.compile(r'name="submission" value="([A-Za-z0-9_-]+)"')


def test_posting_one_card_form_twice_vaults_the_card_once(client: httpx.Client) -> None:
    """A second click or a reload posts the same rendered form again: one request, one card."""
    merchant = sign_up(client)
    customer_id, _ = subscribed(client, merchant)
    base = path_of(portal_session(client, merchant, customer_id))
    form = client.get(f"{base}/payment-method")
    submission = _SUBMISSION.search(form.text)
    assert submission is not None
    card = {
        "anti_forgery_token": form_token(form),
        "submission": submission.group(1),
        "number": "4012888888881881",
        "exp_month": "12",
        "exp_year": "2099",
        "cvc": "123",
    }
    first = client.post(f"{base}/payment-method", data=card)
    again = client.post(f"{base}/payment-method", data=card)
    assert (first.status_code, again.status_code) == (303, 303)
    methods = ok(client.get(f"{API}/customers/{customer_id}/payment-methods", headers=merchant.auth))
    assert sorted(m["card"]["last4"] for m in methods["data"]) == ["1881", "4242"]
    fresh = _SUBMISSION.search(client.get(f"{base}/payment-method").text)
    assert fresh is not None and fresh.group(1) != submission.group(1)  # a new form, a new key
