"""The hosted checkout HTML pages through the Sanic app with a scripted core: page, states, no-JS posts."""

from __future__ import annotations

import re

import grpc
import pytest
from connect.v1 import charge_pb2, checkout_pb2
from connect.v1 import checkout_service_pb2 as svc

from http_gateway.hosted_pages.branding import brand_hex, brand_text_hex
from http_gateway.payments.pages import assets
from http_gateway.payments.pages.view import url_origin
from tests.unit.gateway.gateway_fakes import rpc_error

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; "
    "connect-src 'self'; form-action 'self' https://shop.example http://127.0.0.1:9999; "
    "frame-ancestors 'none'; base-uri 'none'"
)


def _page(**overrides: object) -> checkout_pb2.CheckoutPage:
    fields: dict[str, object] = {
        "charge_id": "ch_1",
        "amount_cents": 123456,
        "currency": "EUR",
        "formatted_amount": "€1,234.56",
        "description": "Desk <oak>",
        "merchant_name": "Acme",
        "merchant_brand_color": "#0a7",
        "return_url": "https://shop.example/ok",
        "cancel_url": "http://127.0.0.1:9999/cancel",
        "available_payment_methods": ["card", "paypal"],
        "status": charge_pb2.CHARGE_STATUS_PENDING,
        "valid": True,
        "expires_at": 5,
        "test_mode": True,
        "found": True,
        **overrides,
    }
    return checkout_pb2.CheckoutPage(**fields)  # type: ignore[arg-type]


def _serves(core, page: checkout_pb2.CheckoutPage) -> None:
    core.checkout.GetCheckoutPage.by_default(svc.GetCheckoutPageResponse(page=page))


def _result(**fields: object) -> svc.CompleteCheckoutResponse:
    return svc.CompleteCheckoutResponse(result=checkout_pb2.CheckoutResult(charge_id="ch_1", **fields))  # type: ignore[arg-type]


async def test_browser_gets_the_server_rendered_page(client, core):
    _serves(core, _page())
    r = await client.get("/checkout/ch_1", headers=BROWSER)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    text = r.text
    assert '<html lang="en">' in text and "<h1" in text
    assert "Acme" in text and "€1,234.56" in text and "Desk &lt;oak&gt;" in text and "<oak>" not in text
    assert "Test mode" in text
    assert 'action="/checkout/ch_1"' in text and 'action="/checkout/ch_1/cancel"' in text
    for name, autocomplete in (
        ("card_number", "cc-number"),
        ("exp_month", "cc-exp-month"),
        ("exp_year", "cc-exp-year"),
        ("cvc", "cc-csc"),
        ("email", "email"),
    ):
        assert f'<label for="{name}">' in text
        assert re.search(rf'<input id="{name}" name="{name}"[^>]*autocomplete="{autocomplete}"', text, re.S)
    assert text.count('inputmode="numeric"') == 4
    assert 'aria-live="assertive"' in text
    assert 'href="/checkout-assets/theme-00aa77.css"' in text  # #0a7, normalised


async def test_page_has_no_inline_script_or_style_and_strict_headers(client, core):
    _serves(core, _page())
    r = await client.get("/checkout/ch_1", headers=BROWSER)
    assert not re.search(r"<script(?![^>]*\bsrc=)", r.text)
    assert " style=" not in r.text and "<style" not in r.text and " on" + "click=" not in r.text
    assert r.headers["Content-Security-Policy"] == CSP
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert r.headers["Cache-Control"] == "no-store"


async def test_api_clients_still_get_json(client, core):
    _serves(core, _page())
    r = await client.get("/checkout/ch_1", headers={"Accept": "application/json"})
    assert r.json()["formattedAmount"] == "€1,234.56" and r.headers["Vary"] == "Accept"
    r = await client.get("/api/v1/checkout/ch_1", headers=BROWSER)
    assert r.json()["chargeId"] == "ch_1"


async def test_live_page_has_no_test_banner_and_a_default_brand(client, core):
    _serves(
        core,
        _page(test_mode=False, merchant_brand_color="red; x", merchant_logo_url="https://cdn.example/l.png"),
    )
    text = (await client.get("/checkout/ch_1", headers=BROWSER)).text
    assert "Test mode" not in text
    assert "theme-334155.css" in text
    assert '<img class="merchant-logo" src="https://cdn.example/l.png" alt=""' in text


async def test_merchant_name_is_escaped(client, core):
    _serves(core, _page(merchant_name='<script>alert("x")</script>'))
    text = (await client.get("/checkout/ch_1", headers=BROWSER)).text
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text


@pytest.mark.parametrize(
    ("status", "message", "title", "link"),
    [
        (
            charge_pb2.CHARGE_STATUS_EXPIRED,
            "This checkout session has expired",
            "This checkout has expired",
            "http://127.0.0.1:9999/cancel",
        ),
        (
            charge_pb2.CHARGE_STATUS_PENDING,
            "This checkout session has expired",
            "This checkout has expired",
            "http://127.0.0.1:9999/cancel",
        ),
        (
            charge_pb2.CHARGE_STATUS_AUTHORIZED,
            "This payment has already been processed",
            "Payment already received",
            "https://shop.example/ok",
        ),
        (
            charge_pb2.CHARGE_STATUS_PARTIALLY_REFUNDED,
            "This payment has already been processed",
            "Payment already received",
            "https://shop.example/ok",
        ),
        (
            charge_pb2.CHARGE_STATUS_FAILED,
            "This payment has failed",
            "Payment failed",
            "http://127.0.0.1:9999/cancel",
        ),
        (
            charge_pb2.CHARGE_STATUS_VOIDED,
            "This payment has been cancelled",
            "Payment cancelled",
            "http://127.0.0.1:9999/cancel",
        ),
        (
            charge_pb2.CHARGE_STATUS_REFUNDED,
            "This payment has been refunded",
            "Payment refunded",
            "https://shop.example/ok",
        ),
        (
            charge_pb2.CHARGE_STATUS_DISPUTED,
            "This payment is under dispute",
            "Payment under dispute",
            "https://shop.example/ok",
        ),
    ],
)
async def test_invalid_states_have_their_own_page(client, core, status, message, title, link):
    _serves(core, _page(status=status, valid=False, error_message=message))
    r = await client.get("/checkout/ch_1", headers=BROWSER)
    assert r.status_code == 200
    assert f">{title}</h1>" in r.text and message in r.text
    assert f'href="{link}">Return to Acme</a>' in r.text
    assert 'id="pay-form"' not in r.text and r.headers["Cache-Control"] == "no-store"


async def test_unknown_and_malformed_ids_are_404_pages(client, core):
    page = checkout_pb2.CheckoutPage(charge_id="nope", valid=False, error_message="Invalid charge ID format")
    _serves(core, page)
    r = await client.get("/checkout/nope", headers=BROWSER)
    assert r.status_code == 404 and "Checkout not found" in r.text and "Invalid charge ID format" in r.text
    assert "form-action 'self';" in r.headers["Content-Security-Policy"]
    assert (await client.get("/checkout/nope")).json()["valid"] is False  # JSON keeps HTTP 200


async def test_core_unavailable_is_a_page_for_browsers(client, core):
    core.checkout.GetCheckoutPage.raises(rpc_error(grpc.StatusCode.INTERNAL))
    r = await client.get("/checkout/ch_1", headers=BROWSER)
    assert r.status_code == 500 and "Something went wrong" in r.text
    r = await client.get("/checkout/ch_1")
    assert r.json()["error"]["type"] == "api_error"


async def test_form_post_pays_and_redirects_with_303(client, core):
    core.checkout.CompleteCheckout.returns(
        _result(success=True, status="authorized", redirect_url="https://shop.example/ok", test_mode=True)
    )
    body = {
        "payment_method": "card",
        "card_number": "4242 4242 4242 4242",
        "exp_month": "7",
        "exp_year": "31",
        "cvc": "123",
        "email": "",
    }
    r = await client.post("/checkout/ch_1", data=body, headers=FORM)
    assert (r.status_code, r.headers["Location"]) == (303, "https://shop.example/ok")
    sent = core.checkout.CompleteCheckout.last
    assert (
        sent.payment_method,
        sent.card.card_number,
        sent.card.exp_month,
        sent.card.exp_year,
        sent.card.cvc,
    ) == ("card", "4242424242424242", 7, 2031, "123")
    assert not sent.HasField("paypal")


async def test_form_post_with_paypal(client, core):
    core.checkout.CompleteCheckout.returns(
        _result(success=True, status="authorized", redirect_url="https://shop.example/ok")
    )
    r = await client.post(
        "/checkout/ch_1", data={"payment_method": "paypal", "email": "a@b.example"}, headers=FORM
    )
    assert r.status_code == 303
    sent = core.checkout.CompleteCheckout.last
    assert sent.paypal.email == "a@b.example" and not sent.HasField("card")


async def test_form_post_decline_renders_the_failed_page(client, core):
    core.checkout.CompleteCheckout.returns(
        _result(
            success=False,
            status="failed",
            redirect_url="http://127.0.0.1:9999/cancel",
            error_code="insufficient_funds",
            error_message="Your card has insufficient funds.",
        )
    )
    _serves(
        core,
        _page(status=charge_pb2.CHARGE_STATUS_FAILED, valid=False, error_message="This payment has failed"),
    )
    body = {
        "payment_method": "card",
        "card_number": "4000000000009995",
        "exp_month": "12",
        "exp_year": "2099",
        "cvc": "123",
    }
    r = await client.post("/checkout/ch_1", data=body, headers=FORM)
    assert r.status_code == 200 and ">Payment failed</h1>" in r.text
    assert "Your card has insufficient funds." in r.text  # the core's sentence, as it sent it
    assert 'href="http://127.0.0.1:9999/cancel">Return to Acme</a>' in r.text


async def test_form_post_validation_error_marks_the_field(client, core):
    core.checkout.CompleteCheckout.raises(
        rpc_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            "The CVC must be 3 or 4 digits.",
            reason="PARAMETER_INVALID",
            type="invalid_request_error",
            param="paymentMethodDetails.cvc",
        )
    )
    _serves(core, _page())
    body = {
        "payment_method": "card",
        "card_number": "4242424242424242",
        "exp_month": "12",
        "exp_year": "2099",
        "cvc": "1",
    }
    r = await client.post("/checkout/ch_1", data=body, headers=FORM)
    assert r.status_code == 400
    assert '<p class="field-error" id="cvc-error">The CVC must be 3 or 4 digits.</p>' in r.text
    assert re.search(r'<input id="cvc"[^>]*aria-invalid="true" autofocus>', r.text, re.S)
    assert 'value="2099"' in r.text and "4242424242424242" not in r.text  # never echo the card number


async def test_form_post_non_numeric_month_never_reaches_the_core(client, core):
    _serves(core, _page())
    body = {
        "payment_method": "card",
        "card_number": "4242424242424242",
        "exp_month": "ab",
        "exp_year": "2099",
        "cvc": "123",
    }
    r = await client.post("/checkout/ch_1", data=body, headers=FORM)
    assert r.status_code == 400 and "The expiry month must be a number." in r.text
    assert core.checkout.CompleteCheckout.calls == []


async def test_form_post_on_an_already_paid_charge_shows_its_state(client, core):
    core.checkout.CompleteCheckout.raises(
        rpc_error(
            grpc.StatusCode.FAILED_PRECONDITION,
            "This payment has already been processed",
            reason="INVALID_STATE",
            type="invalid_request_error",
        )
    )
    _serves(
        core,
        _page(
            status=charge_pb2.CHARGE_STATUS_AUTHORIZED,
            valid=False,
            error_message="This payment has already been processed",
        ),
    )
    r = await client.post("/checkout/ch_1", data={"payment_method": "card"}, headers=FORM)
    assert r.status_code == 200 and "Payment already received" in r.text


async def test_cancel_form_post_redirects_and_json_is_unchanged(client, core):
    core.checkout.CancelCheckout.by_default(
        svc.CancelCheckoutResponse(redirect_url="http://127.0.0.1:9999/cancel")
    )
    r = await client.post("/checkout/ch_1/cancel", content=b"", headers=FORM)
    assert (r.status_code, r.headers["Location"]) == (303, "http://127.0.0.1:9999/cancel")
    r = await client.post("/checkout/ch_1/cancel")
    assert (r.status_code, r.json()) == (200, {"redirectUrl": "http://127.0.0.1:9999/cancel"})


async def test_assets_are_served_and_cacheable(client):
    for name, kind in (("checkout.css", "text/css"), ("checkout.js", "text/javascript")):
        r = await client.get(assets.asset_url(name))
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind)
        assert "max-age" in r.headers["Cache-Control"] and r.headers["X-Content-Type-Options"] == "nosniff"
    theme = await client.get("/checkout-assets/theme-112233.css")
    assert "--brand: #112233;" in theme.text and "--brand-text: #ffffff;" in theme.text
    assert (await client.get("/checkout-assets/theme-zz.css")).status_code == 404
    assert (await client.get("/checkout-assets/..%2Fview.py")).status_code == 404


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("#112233", "112233"),
        ("#ABC", "aabbcc"),
        ("0a7", "00aa77"),
        (None, "334155"),
        ("red", "334155"),
        ("#1122334", "334155"),
        ("#11223g", "334155"),
    ],
)
def test_brand_colour_is_validated(value, expected):
    assert brand_hex(value) == expected


def test_text_on_the_brand_contrasts():
    assert brand_text_hex("000000") == "ffffff" and brand_text_hex("ffffff") == "111827"
    assert brand_text_hex("334155") == "ffffff" and brand_text_hex("fde047") == "111827"


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://shop.example/ok?x=1", "https://shop.example"),
        ("http://127.0.0.1:9999/cancel", "http://127.0.0.1:9999"),
        ("https://user:pw@Shop.Example:8443/", "https://shop.example:8443"),
        ("http://[::1]:8000/x", "http://[::1]:8000"),
        ("javascript:alert(1)", None),
        ("https://a b/", None),
        ("https://shop.example;script-src/", None),
    ],
)
def test_form_action_origins_are_checked(url, origin):
    assert url_origin(url) == origin
