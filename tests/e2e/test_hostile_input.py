"""Hostile requests against the real gateway and core: huge and deeply nested bodies, bytes that are not
UTF-8, headers of absurd length, path traversal in ids. Each is answered with the error envelope (with
`param` where one applies), never a 500, and changes nothing the merchant can see."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, authorized_charge, create_charge
from tests.e2e.hostile_support import auth_header, envelope, raw_get, raw_post, snapshot

pytestmark = pytest.mark.e2e

LIMIT = 1_000_000  # http_gateway/config.py REQUEST_MAX_SIZE


@pytest.fixture(scope="module")
def charges(http: httpx.Client, merchant: Merchant) -> dict[str, str]:
    """A pending and an authorized charge for the id-taking operations to aim at."""
    return {
        "pending": create_charge(http, merchant)["id"],
        "authorized": authorized_charge(http, merchant)["id"],
    }


@pytest.fixture
def unchanged(http: httpx.Client, merchant: Merchant, charges: dict[str, str]) -> Iterator[None]:
    before = snapshot(http, merchant)
    yield
    assert snapshot(http, merchant) == before, "a refused request changed the merchant's data"


# --- huge bodies ---------------------------------------------------------------------------------------

BODY_ROUTES = [
    ("POST", f"{API}/charges", "sk"),
    ("POST", f"{API}/webhooks", "sk"),
    ("POST", f"{API}/customers", "sk"),
    ("POST", f"{API}/plans", "sk"),
    ("POST", f"{API}/tax-rates", "sk"),
    ("POST", f"{API}/subscriptions", "sk"),
    ("POST", "/api/v1/merchants", None),
    ("POST", "/api/v1/auth/token", None),
    ("PATCH", "/api/v1/merchants/me", "jwt"),
    ("POST", "/checkout/{pending}/complete", None),
    ("POST", "/v1/charges/{authorized}/capture", "sk"),
]


def _headers(merchant: Merchant, credential: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if credential == "sk":
        headers.update(merchant.auth)
    elif credential == "jwt":
        headers.update(merchant.jwt)
    return headers


@pytest.mark.parametrize(("method", "path", "credential"), BODY_ROUTES)
def test_a_body_over_the_limit_is_413_in_the_envelope(
    http, merchant, charges, unchanged, method, path, credential
):
    body = b'{"description": "' + b"x" * LIMIT + b'"}'
    response = http.request(
        method, path.format(**charges), content=body, headers=_headers(merchant, credential)
    )
    envelope(response, 413, code="request_too_large", param=None)


def test_a_chunked_body_over_the_limit_is_413_too(http, merchant, unchanged):
    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit must hold while streaming
        yield b'{"description": "'
        for _ in range(20):
            yield b"y" * 100_000
        yield b'"}'

    response = http.post(f"{API}/charges", content=chunks(), headers=_headers(merchant, "sk"))
    envelope(response, 413, code="request_too_large")


def test_a_body_just_under_the_limit_is_read_and_validated(http, merchant, unchanged):
    body = b"{}" + b" " * (LIMIT - 2)
    response = http.post(f"{API}/charges", content=body, headers=_headers(merchant, "sk"))
    envelope(response, 400, code="parameter_missing", param="amount")


# --- deeply nested JSON ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 400_000 + b"]" * 400_000,
        b'{"metadata": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"}",
    ],
    ids=["arrays", "objects"],
)
def test_nesting_past_the_parser_is_a_400(http, merchant, unchanged, body):
    error = envelope(http.post(f"{API}/charges", content=body, headers=_headers(merchant, "sk")), 400)
    assert error["code"] == "parameter_invalid" and "nested too deeply" in error["message"]


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        (
            f"{API}/charges",
            {
                "amount": 1000,
                "currency": "usd",
                "return_url": "https://x.example",
                "metadata": {"k": {"a": [[[[[[[[[["deep"]]]]]]]]]]}},
            },
            "metadata[k]",
        ),
        (
            f"{API}/charges",
            {"amount": {"a": {"b": {"c": 1}}}, "currency": "usd", "return_url": "https://x.example"},
            "amount",
        ),
        (
            "/checkout/{pending}/complete",
            {"paymentMethod": "card", "paymentMethodDetails": {"card_number": {"n": [[["4242"]]]}}},
            "paymentMethodDetails.card_number",
        ),
        (f"{API}/webhooks", {"url": "https://x.example", "events": [["charge.created"]]}, "events"),
    ],
)
def test_nesting_where_a_value_belongs_names_the_field(http, merchant, charges, unchanged, path, body, param):
    response = http.post(path.format(**charges), json=body, headers=_headers(merchant, "sk"))
    envelope(response, 400, code="parameter_invalid", param=param)


# --- bytes that are not UTF-8 ------------------------------------------------------------------------


# The start of a valid charge body; each case below ends it with one hostile field.
CHARGE_HEAD = b'{"amount": 1000, "currency": "usd", "return_url": "https://x.example", '


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (
            CHARGE_HEAD + b'"description": "\xff\xfe"}',
            None,
        ),
        (
            CHARGE_HEAD + b'"description": "\xc0\xaf"}',
            None,
        ),
        (
            CHARGE_HEAD + b'"description": "\xed\xa0\x80"}',
            None,
        ),
        (
            CHARGE_HEAD + b'"description": "\\ud800"}',
            "description",
        ),
        (
            CHARGE_HEAD + b'"metadata": {"\\udfff": "v"}}',
            "metadata[\udfff]",
        ),
        (
            CHARGE_HEAD + b'"description": "a\\u0000b"}',
            "description",
        ),
    ],
)
def test_invalid_unicode_in_the_body(unthrottled_gateway, merchant, unchanged, body, param):
    response = raw_post(unthrottled_gateway.base_url, f"{API}/charges".encode(), body, auth_header(merchant))
    error = envelope(response, 400, code="parameter_invalid")
    assert error["param"] == param or (param and error["param"].startswith("metadata[")), error


def test_invalid_utf8_in_the_idempotency_key_is_a_400_not_a_500(unthrottled_gateway, merchant, unchanged):
    response = raw_post(
        unthrottled_gateway.base_url,
        f"{API}/charges".encode(),
        b"{}",
        auth_header(merchant) + b"Idempotency-Key: \xff\xfe\x00k\r\n",
    )
    envelope(response, 400, code="parameter_invalid", param="Idempotency-Key")


@pytest.mark.parametrize("path", [f"{API}/charges", "/api/v1/merchants/me"])
def test_invalid_utf8_in_the_credential_is_a_401_not_a_500(unthrottled_gateway, unchanged, path):
    response = raw_get(
        unthrottled_gateway.base_url, path.encode(), b"Authorization: Bearer sk_test_\xff\xfe\r\n"
    )
    assert envelope(response, 401)["type"] == "authentication_error"


@pytest.mark.parametrize(
    "target",
    [
        b"/api/v1/connect/charges?status=%ff",
        b"/api/v1/connect/events?type=%ed%a0%80",
        b"/api/v1/connect/charges?starting_after=%00",
    ],
)
def test_invalid_utf8_in_the_query_names_the_parameter(unthrottled_gateway, merchant, unchanged, target):
    response = raw_get(unthrottled_gateway.base_url, target, auth_header(merchant))
    param = target.split(b"?")[1].split(b"=")[0].decode()
    envelope(response, 400, code="parameter_invalid", param=param)


@pytest.mark.parametrize(
    "target",
    [b"/api/v1/connect/charges/ch_\xff\xfe", b"/api/v1/connect/charges?status=\xff", b"/checkout/\xc0\xaf"],
)
def test_raw_non_ascii_bytes_in_the_request_line_are_a_400(unthrottled_gateway, merchant, unchanged, target):
    envelope(
        raw_get(unthrottled_gateway.base_url, target, auth_header(merchant)), 400, code="request_invalid"
    )


def test_invalid_utf8_in_the_no_js_form_answers_a_page(unthrottled_gateway, charges):
    response = raw_post(
        unthrottled_gateway.base_url,
        f"/checkout/{charges['pending']}".encode(),
        b"payment_method=card&card_number=\xff\xfe&cvc=%ff",
        content_type=b"application/x-www-form-urlencoded",
    )
    assert response.status == 400 and response.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("page", ["checkout", "/dashboard/sign-in", "/portal/junk/payment-method"])
def test_a_multipart_form_without_a_boundary_answers_a_page(unthrottled_gateway, charges, page):
    """No browser sends it; Sanic's own parsing would log a traceback at error level for each one (the
    last test of the module reads the log)."""
    target = f"/checkout/{charges['pending']}" if page == "checkout" else page
    response = raw_post(
        unthrottled_gateway.base_url,
        target.encode(),
        b'--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--x--\r\n',
        content_type=b"multipart/form-data",
    )
    assert 400 <= response.status < 500, response.status
    assert response.headers["content-type"].startswith("text/html")


# --- headers of absurd length ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [9_000, 100_000])
def test_a_header_block_over_8_kib_is_431(http, merchant, unchanged, size):
    response = http.get(f"{API}/charges", headers={**merchant.auth, "X-Padding": "p" * size})
    envelope(response, 431, code="request_headers_too_large", param=None)


def test_many_small_headers_count_together(http, merchant, unchanged):
    response = http.get(
        f"{API}/charges", headers={**merchant.auth, **{f"X-H{i}": "v" * 10 for i in range(600)}}
    )
    envelope(response, 431, code="request_headers_too_large")


@pytest.mark.parametrize(
    ("headers", "status", "param"),
    [
        ({"Authorization": "Bearer sk_test_" + "a" * 5000}, 401, None),
        ({"Authorization": "Bearer " + "x." * 3000}, 401, None),
        ({"Idempotency-Key": "k" * 101}, 400, "Idempotency-Key"),
        ({"Service-Version": "2025-06-01" * 300}, 400, "Service-Version"),
    ],
)
def test_long_values_of_known_headers(http, merchant, unchanged, headers, status, param):
    response = http.post(f"{API}/charges", json={}, headers={**merchant.auth, **headers})
    envelope(response, status, param=param)


# --- path traversal and junk in ids ------------------------------------------------------------------

TRAVERSALS = [
    "..%2F..%2Fhealthz",
    "..%2f..%2f..%2fetc%2fpasswd",
    "%2e%2e",
    "..%5C..%5Cwindows",
    "ch_%00",
    "ch_x%2Fcapture",
    "%252e%252e%252f",
    "ch_" + "A" * 3000,
    "%F0%9F%92%A3",
    "'%20OR%20'1'%3D'1",
]
ID_ROUTES = [
    ("GET", f"{API}/charges/{{id}}", "sk"),
    ("POST", f"{API}/charges/{{id}}/capture", "sk"),
    ("POST", "/connect/v1/charges/{id}/refunds", "sk"),
    ("POST", "/v1/charges/{id}/void", "sk"),
    ("POST", f"{API}/test_helpers/charges/{{id}}/dispute", "sk"),
    ("POST", f"{API}/test_helpers/disputes/{{id}}/close", "sk"),
    ("GET", f"{API}/webhooks/{{id}}", "sk"),
    ("PATCH", f"{API}/webhooks/{{id}}", "sk"),
    ("DELETE", f"{API}/webhooks/{{id}}", "sk"),
    ("GET", f"{API}/webhooks/{{id}}/deliveries", "sk"),
    ("GET", f"{API}/events/{{id}}", "sk"),
    ("POST", f"{API}/events/{{id}}/resend", "sk"),
    ("GET", f"{API}/customers/{{id}}", "sk"),
    ("PATCH", f"{API}/customers/{{id}}", "sk"),
    ("GET", f"{API}/customers/{{id}}/payment-methods", "sk"),
    ("DELETE", f"{API}/customers/{{id}}/payment-methods/{{id}}", "sk"),
    ("GET", f"{API}/customers/{{id}}/balance-transactions", "sk"),
    ("POST", f"{API}/customers/{{id}}/balance-transactions", "sk"),
    ("GET", f"{API}/plans/{{id}}", "sk"),
    ("GET", f"{API}/plans/{{id}}/prices", "sk"),
    ("POST", f"{API}/plans/{{id}}/prices", "sk"),
    ("GET", f"{API}/prices/{{id}}", "sk"),
    ("PATCH", f"{API}/prices/{{id}}", "sk"),
    ("GET", f"{API}/tax-rates/{{id}}", "sk"),
    ("PATCH", f"{API}/tax-rates/{{id}}", "sk"),
    ("GET", f"{API}/subscriptions/{{id}}", "sk"),
    ("PATCH", f"{API}/subscriptions/{{id}}", "sk"),
    ("POST", f"{API}/subscriptions/{{id}}/cancel", "sk"),
    ("POST", f"{API}/subscriptions/{{id}}/pause", "sk"),
    ("POST", f"{API}/subscriptions/{{id}}/resume", "sk"),
    ("POST", f"{API}/subscriptions/{{id}}/preview", "sk"),
    ("GET", f"{API}/subscriptions/{{id}}/items", "sk"),
    ("POST", f"{API}/subscriptions/{{id}}/items", "sk"),
    ("PATCH", f"{API}/subscriptions/{{id}}/items/{{id}}", "sk"),
    ("DELETE", f"{API}/subscriptions/{{id}}/items/{{id}}", "sk"),
    ("GET", f"{API}/invoices/{{id}}", "sk"),
    ("DELETE", f"{API}/keys/{{id}}", "jwt"),
    ("GET", "/checkout-assets/{id}", None),
]
# The public checkout checks the id's format first (spec: "Validate charge ID format") and names it.
CHECKOUT_ID_ROUTES = [("POST", "/checkout/{id}/complete"), ("POST", "/api/v1/checkout/{id}/cancel")]


@pytest.mark.parametrize(
    ("method", "path", "credential"), ID_ROUTES, ids=[f"{m} {p}" for m, p, _ in ID_ROUTES]
)
def test_traversal_and_junk_ids_are_404s(http, merchant, unchanged, method, path, credential):
    for junk in TRAVERSALS:
        body: dict[str, object] | None = {"outcome": "won"} if "close" in path else None
        if method == "POST" and path.endswith("/prices"):  # validation comes before the lookup (DESIGN §5a)
            body = {"amount_cents": 1500, "currency": "usd", "interval": "monthly"}
        if path.endswith("/items"):
            body = {"priceId": "price_" + "x" * 24, "quantity": 1} if method == "POST" else None
        if path.endswith("/items/{id}") and method == "PATCH":
            body = {"quantity": 2}
        if path.endswith("/preview"):
            body = {"add_item": {"priceId": "price_" + "x" * 24, "quantity": 1}}
        if path.endswith("/balance-transactions") and method == "POST":
            body = {"amount_cents": 500, "currency": "usd"}
        response = http.request(
            method, path.format(id=junk), json=body, headers=_headers(merchant, credential)
        )
        envelope(response, 404)


@pytest.mark.parametrize(("method", "path"), CHECKOUT_ID_ROUTES)
def test_traversal_and_junk_ids_in_checkout_are_malformed_ids(http, merchant, unchanged, method, path):
    for junk in TRAVERSALS:
        response = http.request(method, path.format(id=junk), json={"paymentMethod": "card"})
        envelope(response, 400, code="parameter_invalid", param="chargeId")


@pytest.mark.parametrize("junk", TRAVERSALS)
def test_the_checkout_page_of_a_junk_id_is_invalid_not_an_error(http, junk):
    response = http.get(f"/checkout/{junk}")
    assert response.status_code == 200 and response.json()["valid"] is False


def test_no_hostile_request_left_an_error_in_the_gateway_log(unthrottled_gateway):
    """Runs last in the module: refused input is routine, so nothing of it may reach the log at error
    level (a traceback per junk request would let any client flood the log)."""
    errors = [line for line in unthrottled_gateway.log_text().splitlines() if '"level": "error"' in line]
    assert not errors, errors[:3]
