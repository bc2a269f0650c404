"""Hostile values in well-formed requests: SQL metacharacters in every string field, amounts that are
negative, fractional, textual or huge, and timestamps out of range. A value is either refused with the
envelope naming its field (and nothing changes), or it is plain data and reads back exactly as sent;
never a 500, and never slower than a normal request (no `pg_sleep` runs)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, authorized_charge, create_charge
from tests.e2e.hostile_support import envelope, snapshot

pytestmark = pytest.mark.e2e

SQL = [
    "' OR '1'='1",
    "'; DROP TABLE charges; --",
    '" OR ""="',
    "1; SELECT pg_sleep(3)--",
    "%' AND 1=1 --",
    "$$ OR 1=1 $$",
    "\\'; --",
    "admin'/*",
]
SLOW = 2.0  # seconds; pg_sleep(3) would exceed it
GOOD_CHARGE = {"amount": 1000, "currency": "usd", "return_url": "https://shop.example/ok"}


def timed(http: httpx.Client, method: str, path: str, **kwargs: Any) -> httpx.Response:
    started = time.monotonic()
    response = http.request(method, path, **kwargs)
    assert time.monotonic() - started < SLOW, f"{method} {path} took too long: injected SQL ran?"
    assert response.status_code < 500, response.text
    return response


def refused_or_verbatim(response: httpx.Response, params: set[str], sent: str, shown: Any) -> bool:
    """True when refused (400 naming one of `params`); else the value must read back exactly as sent."""
    if response.status_code == 400:
        error = envelope(response, 400)
        assert error["param"] in params or any(error["param"].startswith(p + "[") for p in params), error
        return True
    assert response.status_code in (200, 201), response.text
    assert shown == sent, f"stored {shown!r}, sent {sent!r}"
    return False


# --- SQL metacharacters ------------------------------------------------------------------------------

CHARGE_FIELDS = [
    "currency",
    "description",
    "metadata_key",
    "metadata_value",
    "return_url",
    "returnUrl",
    "cancel_url",
    "customer_email",
]


def _charge_with(field: str, payload: str) -> dict[str, Any]:
    if field == "metadata_key":
        return {**GOOD_CHARGE, "metadata": {payload: "v"}}
    if field == "metadata_value":
        return {**GOOD_CHARGE, "metadata": {"k": payload}}
    name = "return_url" if field == "returnUrl" else field
    return {**{k: v for k, v in GOOD_CHARGE.items() if k != name}, field: payload}


def _read_back(charge: dict[str, Any], field: str, payload: str) -> Any:
    if field == "metadata_key":
        return payload if charge["metadata"].get(payload) == "v" else None
    if field == "metadata_value":
        return charge["metadata"]["k"]
    return charge["return_url" if field == "returnUrl" else field]


@pytest.mark.parametrize("field", CHARGE_FIELDS)
def test_sql_in_every_create_charge_field(http, merchant, field):
    before = http.get(f"{API}/charges", headers=merchant.auth).json()["total_count"]
    created = 0
    params = {field, "return_url" if field == "returnUrl" else field, "metadata"}
    for payload in SQL:
        response = timed(
            http, "POST", f"{API}/charges", json=_charge_with(field, payload), headers=merchant.auth
        )
        shown = None
        if response.status_code == 201:
            stored = http.get(f"{API}/charges/{response.json()['id']}", headers=merchant.auth).json()
            shown = _read_back(stored, field, payload)
        if not refused_or_verbatim(response, params, payload, shown):
            created += 1
    after = http.get(f"{API}/charges", headers=merchant.auth).json()["total_count"]
    assert after == before + created, "refused requests must create nothing; accepted ones exactly one each"


# (method, path, credential, body or query builder, the field's param, where the response shows it)
WRITES: list[tuple[str, str, str | None, Any, str, Any]] = [
    (
        "PATCH",
        "/api/v1/merchants/me",
        "jwt",
        lambda p: {"business_name": p},
        "business_name",
        "business_name",
    ),
    ("PATCH", "/api/v1/merchants/me", "jwt", lambda p: {"logo_url": p}, "logo_url", "logo_url"),
    ("PATCH", "/api/v1/merchants/me", "jwt", lambda p: {"brand_color": p}, "brand_color", "brand_color"),
    (
        "PATCH",
        "/api/v1/merchants/me",
        "jwt",
        lambda p: {"support_email": p},
        "support_email",
        "support_email",
    ),
    ("PATCH", "/api/v1/merchants/me", "jwt", lambda p: {"payout_schedule": p}, "payout_schedule", None),
    ("POST", f"{API}/keys", "jwt", lambda p: {"environment": p}, "environment", None),
    ("POST", f"{API}/webhooks", "sk", lambda p: {"url": p, "events": ["*"]}, "url", None),
    (
        "POST",
        f"{API}/webhooks",
        "sk",
        lambda p: {"url": "http://localhost:9/h", "events": [p]},
        "events",
        None,
    ),
    ("POST", f"{API}/charges/{{authorized}}/refunds", "sk", lambda p: {"reason": p}, "reason", None),
    (
        "POST",
        f"{API}/test_helpers/disputes/{{dispute}}/close",
        "sk",
        lambda p: {"outcome": p},
        "outcome",
        None,
    ),
    ("POST", "/checkout/{pending}/complete", None, lambda p: {"paymentMethod": p}, "paymentMethod", None),
    (
        "POST",
        "/checkout/{pending}/complete",
        None,
        lambda p: {
            "paymentMethod": "card",
            "paymentMethodDetails": {"card_number": p, "exp_month": 12, "exp_year": 2099, "cvc": "123"},
        },
        "paymentMethodDetails.card_number",
        None,
    ),
    (
        "POST",
        "/checkout/{pending}/complete",
        None,
        lambda p: {
            "paymentMethod": "card",
            "paymentMethodDetails": {
                "card_number": "4242424242424242",
                "exp_month": 12,
                "exp_year": 2099,
                "cvc": p,
            },
        },
        "paymentMethodDetails.cvc",
        None,
    ),
    (
        "POST",
        "/checkout/{pending}/complete",
        None,
        lambda p: {"paymentMethod": "paypal", "paymentMethodDetails": {"email": p}},
        "paymentMethodDetails.email",
        None,
    ),
]


@pytest.fixture(scope="module")
def targets(http: httpx.Client, merchant: Merchant) -> dict[str, str]:
    captured = authorized_charge(http, merchant)["id"]
    assert http.post(f"{API}/charges/{captured}/capture", headers=merchant.auth).status_code == 200
    disputed = authorized_charge(http, merchant)["id"]
    assert http.post(f"{API}/charges/{disputed}/capture", headers=merchant.auth).status_code == 200
    dispute = http.post(f"{API}/test_helpers/charges/{disputed}/dispute", headers=merchant.auth)
    assert dispute.status_code == 201, dispute.text
    return {
        "pending": create_charge(http, merchant)["id"],
        "authorized": captured,
        "dispute": dispute.json()["id"],
    }


def _auth(merchant: Merchant, credential: str | None) -> dict[str, str]:
    return merchant.auth if credential == "sk" else merchant.jwt if credential == "jwt" else {}


@pytest.mark.parametrize(
    ("method", "path", "credential", "build", "param", "shown"),
    WRITES,
    ids=[f"{w[0]} {w[1]} {w[4]}" for w in WRITES],
)
def test_sql_in_every_other_string_field(
    http, merchant, targets, method, path, credential, build, param, shown
):
    for payload in SQL:
        before = snapshot(http, merchant)
        response = timed(
            http, method, path.format(**targets), json=build(payload), headers=_auth(merchant, credential)
        )
        value = response.json().get(shown) if shown and response.status_code == 200 else None
        if refused_or_verbatim(response, {param}, payload, value):
            assert snapshot(http, merchant) == before, f"{param}={payload!r} was refused but changed data"


@pytest.mark.parametrize("field", ["email", "password", "business_name"])
def test_sql_in_sign_up_and_login(http, field):
    for payload in SQL:
        body = {
            "email": f"s{uuid.uuid4().hex[:10]}@example.com",
            "password": "long enough pw",
            "business_name": "Shop",
            field: payload,
        }
        created = timed(http, "POST", "/api/v1/merchants", json=body)
        refused_or_verbatim(
            created, {field}, payload, created.json().get(field) if field != "password" else payload
        )
        login = timed(http, "POST", "/api/v1/auth/token", json={"email": payload, "password": payload})
        envelope(login, 401)  # never "logged in as whoever matched the injected condition"


@pytest.mark.parametrize(
    ("path", "param"),
    [
        (f"{API}/charges", "status"),
        (f"{API}/charges", "starting_after"),
        (f"{API}/events", "type"),
        (f"{API}/events", "starting_after"),
        (f"{API}/subscriptions", "status"),
        (f"{API}/subscriptions", "starting_after"),
        (f"{API}/invoices", "status"),
        (f"{API}/invoices", "starting_after"),
    ],
)
def test_sql_in_query_parameters(http, merchant, path, param):
    for payload in SQL:
        response = timed(http, "GET", path, params={param: payload}, headers=merchant.auth)
        envelope(response, 400, code="parameter_invalid", param=param)


@pytest.mark.parametrize("param", ["customer_id", "price_id"])
def test_sql_in_subscription_filters_is_plain_data(http, merchant, param):
    """An id filter is compared as a value: an injected condition matches nothing."""
    for payload in SQL:
        response = timed(http, "GET", f"{API}/subscriptions", params={param: payload}, headers=merchant.auth)
        assert response.status_code == 200 and response.json()["data"] == [], response.text


# --- amounts -----------------------------------------------------------------------------------------

BAD_AMOUNTS = [
    -1,
    0,
    49,
    -(2**63),
    10.5,
    1000.0,
    1e400,
    "1000",
    "ten",
    True,
    [],
    {},
    2**63,
    10**100,
    100_000_000,
]


@pytest.mark.parametrize("amount", BAD_AMOUNTS, ids=repr)
def test_bad_charge_amounts(http, merchant, amount):
    before = http.get(f"{API}/charges", headers=merchant.auth).json()["total_count"]
    amount_text = "1e400" if amount == 1e400 else json.dumps(amount)  # 1e400: a float JSON cannot hold
    content = f'{{"amount": {amount_text}, "currency": "usd", "return_url": "https://shop.example/ok"}}'
    response = timed(
        http,
        "POST",
        f"{API}/charges",
        content=content,
        headers={**merchant.auth, "Content-Type": "application/json"},
    )
    envelope(response, 400, param="amount")
    assert http.get(f"{API}/charges", headers=merchant.auth).json()["total_count"] == before


@pytest.mark.parametrize("operation", ["capture", "refunds"])
def test_bad_capture_and_refund_amounts(http, merchant, operation):
    charge = authorized_charge(http, merchant)["id"]
    if operation == "refunds":
        assert http.post(f"{API}/charges/{charge}/capture", headers=merchant.auth).status_code == 200
    before = http.get(f"{API}/charges/{charge}", headers=merchant.auth).json()
    for amount in [-1, 0, 0.5, 1000.0, "500", True, [], 2**63, -(2**64), 10**30, 10_001]:
        response = timed(
            http,
            "POST",
            f"{API}/charges/{charge}/{operation}",
            json={"amount": amount},
            headers=merchant.auth,
        )
        envelope(response, 400, param="amount")
    assert http.get(f"{API}/charges/{charge}", headers=merchant.auth).json() == before


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("exp_month", -1),
        ("exp_month", 13),
        ("exp_month", 1.5),
        ("exp_month", "12"),
        ("exp_month", 2**31),
        ("exp_year", 99999),
        ("exp_year", -2030),
        ("exp_year", 2030.0),
        ("exp_year", "2030"),
        ("exp_year", 2**40),
        ("exp_year", 2000),
    ],
)
def test_bad_card_expiry_numbers(http, merchant, field, value):
    charge = create_charge(http, merchant)["id"]
    details = {
        "card_number": "4242424242424242",
        "exp_month": 12,
        "exp_year": 2099,
        "cvc": "123",
        field: value,
    }
    response = timed(
        http,
        "POST",
        f"/checkout/{charge}/complete",
        json={"paymentMethod": "card", "paymentMethodDetails": details},
    )
    envelope(response, 400, param=f"paymentMethodDetails.{field}")
    assert http.get(f"{API}/charges/{charge}", headers=merchant.auth).json()["status"] == "pending"


# --- timestamps --------------------------------------------------------------------------------------


@pytest.mark.parametrize("param", ["created_after", "created_before"])
def test_timestamps_out_of_range(http, merchant, param):
    for value in [
        "-1",
        "253402300800",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999999",
        "1e10",
        "1.5",
        "0x10",
        "",
        " 1",
        "1 ",
        "١٢٣",
    ]:
        response = timed(http, "GET", f"{API}/charges", params={param: value}, headers=merchant.auth)
        envelope(response, 400, code="parameter_invalid", param=param)
    edge = timed(http, "GET", f"{API}/charges", params={param: "253402300799"}, headers=merchant.auth)
    assert edge.status_code == 200


def test_no_hostile_request_left_an_error_in_the_gateway_log(unthrottled_gateway):
    """Runs last in the module: refused input is routine, so nothing of it may reach the log at error
    level (a traceback per junk request would let any client flood the log)."""
    errors = [line for line in unthrottled_gateway.log_text().splitlines() if '"level": "error"' in line]
    assert not errors, errors[:3]
