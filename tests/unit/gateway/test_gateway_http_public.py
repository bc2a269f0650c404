"""Sign-up, login, profile, key management, hosted checkout and health through the Sanic app."""

from __future__ import annotations

import time

import grpc
import jwt
from connect.v1 import api_key_service_pb2 as keys_svc
from connect.v1 import charge_pb2, checkout_pb2, common_pb2, merchant_pb2
from connect.v1 import checkout_service_pb2 as checkout_svc
from connect.v1 import merchant_service_pb2 as merchant_svc

from http_gateway.payments import checkout as checkout_routes
from tests.support.core_shapes import api_key_message, merchant_message
from tests.unit.gateway.gateway_fakes import SIGNING_KEY, rpc_error


def _bearer(merchant_id: str = "acct_1") -> dict[str, str]:
    now = int(time.time())
    claims = {"sub": merchant_id, "iat": now, "exp": now + 600, "iss": "payment-connect", "typ": "merchant"}
    return {"Authorization": "Bearer " + jwt.encode(claims, SIGNING_KEY, algorithm="HS256")}


def _error(r) -> tuple[int, str | None, str | None]:
    error = r.json()["error"]
    return r.status_code, error["type"], error["param"]


MERCHANT = merchant_message("acct_1", business_name="Shop")


async def test_signup_is_201_with_signup_idempotency_scope(client, core, redis):
    core.merchants.CreateMerchant.returns(merchant_svc.CreateMerchantResponse(merchant=MERCHANT))
    body = {"email": "m@example.com", "password": "correct horse", "business_name": "Shop"}
    r = await client.post("/api/v1/merchants", json=body, headers={"Idempotency-Key": "s1"})
    assert r.status_code == 201
    assert r.json()["object"] == "merchant" and r.json()["payout_schedule"] == "daily"
    assert core.idempotency.CheckIdempotencyKey.last.scope == "signup"
    assert core.merchants.CreateMerchant.last.password == "correct horse"
    assert r.headers["X-RateLimit-Limit"] == "25"
    assert all(k.startswith("pc:rl:ip:") for k in redis.counts)


async def test_signup_requires_email_and_password(client, core):
    r = await client.post("/v1/merchants", json={"email": "m@example.com"})
    assert _error(r) == (400, "invalid_request_error", "password")


async def test_login_has_no_idempotency(client, core):
    token = merchant_svc.IssueTokenResponse(access_token="t", token_type="bearer", expires_in=3600)
    core.merchants.IssueToken.returns(token)
    body = {"email": "m@example.com", "password": "pw"}
    r = await client.post("/api/v1/auth/token", json=body, headers={"Idempotency-Key": "x"})
    assert r.json() == {"access_token": "t", "token_type": "bearer", "expires_in": 3600}
    assert core.idempotency.CheckIdempotencyKey.calls == []


async def test_wrong_password_is_401(client, core):
    core.merchants.IssueToken.raises(
        rpc_error(
            grpc.StatusCode.UNAUTHENTICATED,
            "Invalid e-mail or password.",
            reason="invalid_credentials",
            type="authentication_error",
        )
    )
    r = await client.post("/api/v1/auth/token", json={"email": "m@example.com", "password": "nope"})
    assert _error(r) == (401, "authentication_error", None)


async def test_profile_read_and_partial_update(client, core):
    core.merchants.GetMerchant.returns(merchant_svc.GetMerchantResponse(merchant=MERCHANT))
    r = await client.get("/api/v1/merchants/me", headers=_bearer())
    assert (r.status_code, r.json()["id"]) == (200, "acct_1")
    assert core.merchants.GetMerchant.last.merchant_id == "acct_1"
    core.merchants.UpdateMerchant.returns(merchant_svc.UpdateMerchantResponse(merchant=MERCHANT))
    body = {"brand_color": "#112233", "logo_url": None, "payout_schedule": "weekly"}
    r = await client.patch("/v1/merchants/me", json=body, headers=_bearer())
    assert r.status_code == 200
    sent = core.merchants.UpdateMerchant.last
    assert sent.brand_color == "#112233"
    assert sent.HasField("logo_url") and sent.logo_url == ""  # null clears
    assert not sent.HasField("business_name")
    assert sent.payout_schedule == merchant_pb2.PAYOUT_SCHEDULE_WEEKLY


async def test_profile_update_refuses_an_unknown_schedule(client, core):
    r = await client.patch("/v1/merchants/me", json={"payout_schedule": "hourly"}, headers=_bearer())
    assert _error(r) == (400, "invalid_request_error", "payout_schedule")


async def test_profile_needs_a_valid_token(client):
    r = await client.get("/v1/merchants/me", headers={"Authorization": "Bearer a.b.c"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "token_invalid")


KEY = api_key_message("key_1", secret="sk_test_s")


async def test_key_create_list_revoke(client, core):
    core.api_keys.CreateApiKey.returns(keys_svc.CreateApiKeyResponse(api_key=KEY))
    headers = {**_bearer(), "Idempotency-Key": "k"}
    body = {"name": "srv", "environment": "test"}
    r = await client.post("/api/v1/connect/keys", json=body, headers=headers)
    assert (r.status_code, r.json()["secret_key"], r.json()["object"]) == (201, "sk_test_s", "api_key")
    assert core.api_keys.CreateApiKey.last.environment == common_pb2.ENVIRONMENT_TEST
    assert core.idempotency.CheckIdempotencyKey.last.scope == "acct_1:dashboard"

    listed = api_key_message("key_1")
    core.api_keys.ListApiKeys.returns(keys_svc.ListApiKeysResponse(api_keys=[listed]))
    r = await client.get("/api/v1/connect/keys", headers=_bearer())
    body = r.json()
    assert (body["object"], body["has_more"], body["url"]) == ("list", False, "/api/v1/connect/keys")
    assert "secret_key" not in body["data"][0] and body["data"][0]["secret_key_last4"] == "st_s"

    revoked = api_key_message("key_1", revoked_at=9)
    core.api_keys.RevokeApiKey.returns(keys_svc.RevokeApiKeyResponse(api_key=revoked))
    r = await client.delete("/api/v1/connect/keys/key_1", headers=_bearer())
    assert (r.status_code, r.json()["revoked"], r.json()["revoked_at"]) == (200, True, 9)
    assert core.api_keys.RevokeApiKey.last.key_id == "key_1"


async def test_key_environment_must_be_live_or_test(client, core):
    r = await client.post("/v1/keys", json={"name": "x", "environment": "prod"}, headers=_bearer())
    assert _error(r) == (400, "invalid_request_error", "environment")


PAGE = checkout_pb2.CheckoutPage(
    charge_id="ch_1",
    amount_cents=5000,
    currency="USD",
    formatted_amount="$50.00",
    merchant_name="Shop",
    return_url="https://r",
    cancel_url="https://c",
    available_payment_methods=["card", "paypal"],
    status=charge_pb2.CHARGE_STATUS_PENDING,
    valid=True,
    expires_at=5,
    test_mode=True,
    found=True,
)


async def test_checkout_page_json_on_both_mounts(client, core, redis):
    core.checkout.GetCheckoutPage.by_default(checkout_svc.GetCheckoutPageResponse(page=PAGE))
    for path in ("/checkout/ch_1", "/api/v1/checkout/ch_1"):
        r = await client.get(path)
        assert (r.status_code, r.json()["chargeId"], r.json()["formattedAmount"]) == (200, "ch_1", "$50.00")
    assert all(k.startswith("pc:rl:ip:203.0.113.9:") for k in redis.counts)


async def test_browsers_get_the_html_hook(client, core, monkeypatch):
    core.checkout.GetCheckoutPage.by_default(checkout_svc.GetCheckoutPageResponse(page=PAGE))
    seen: list[str] = []
    monkeypatch.setattr(
        checkout_routes, "render_checkout_page_html", lambda request, page: seen.append(page.charge_id)
    )
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    r = await client.get("/checkout/ch_1", headers=browser)
    assert seen == ["ch_1"]
    assert r.json()["chargeId"] == "ch_1"  # the hook answered None: JSON until the page exists
    await client.get("/checkout/ch_1")
    await client.get("/api/v1/checkout/ch_1", headers=browser)
    assert seen == ["ch_1"]


async def test_checkout_complete_with_a_card(client, core):
    result = checkout_pb2.CheckoutResult(
        success=False,
        charge_id="ch_1",
        status="failed",
        redirect_url="https://c",
        error_code="generic_decline",
        error_message="Your card was declined.",
        test_mode=True,
    )
    core.checkout.CompleteCheckout.returns(checkout_svc.CompleteCheckoutResponse(result=result))
    details = {"cardNumber": "4000000000000002", "exp_month": 12, "expYear": 2030, "cvc": "123"}
    body = {"paymentMethod": "card", "paymentMethodDetails": details}
    r = await client.post("/checkout/ch_1/complete", json=body, headers={"Idempotency-Key": "c1"})
    assert r.status_code == 200
    assert r.json() == {
        "success": False,
        "chargeId": "ch_1",
        "status": "failed",
        "redirectUrl": "https://c",
        "errorCode": "generic_decline",
        "errorMessage": "Your card was declined.",
        "testMode": True,
    }
    sent = core.checkout.CompleteCheckout.last
    assert (sent.payment_method, sent.card.card_number, sent.card.cvc) == ("card", "4000000000000002", "123")
    assert (sent.card.exp_month, sent.card.exp_year) == (12, 2030)
    assert not sent.HasField("paypal")
    assert sent.idempotency.key == "c1"
    assert core.idempotency.CheckIdempotencyKey.calls == []  # a valid body: the core's claim judges the key


async def test_checkout_complete_with_a_bad_body_checks_the_key_in_the_checkout_scope(client, core):
    body = {"paymentMethod": "card", "paymentMethodDetails": {"exp_month": "twelve"}}
    r = await client.post("/checkout/ch_1/complete", json=body, headers={"Idempotency-Key": "c1"})
    assert r.status_code == 400
    assert core.idempotency.CheckIdempotencyKey.last.scope == "checkout:ch_1"
    assert core.checkout.CompleteCheckout.calls == []


async def test_checkout_complete_with_paypal(client, core):
    ok = checkout_pb2.CheckoutResult(success=True, charge_id="ch_1", status="authorized")
    core.checkout.CompleteCheckout.returns(checkout_svc.CompleteCheckoutResponse(result=ok))
    body = {"paymentMethod": "paypal", "paymentMethodDetails": {"email": "success@sandbox.paypal.test"}}
    r = await client.post("/api/v1/checkout/ch_1/complete", json=body)
    assert r.json()["success"] is True
    assert core.checkout.CompleteCheckout.last.paypal.email == "success@sandbox.paypal.test"


async def test_checkout_detail_type_errors_name_the_nested_field(client, core):
    details = {"card_number": "4242424242424242", "exp_month": "12"}
    body = {"paymentMethod": "card", "paymentMethodDetails": details}
    r = await client.post("/checkout/ch_1/complete", json=body)
    assert _error(r) == (400, "invalid_request_error", "paymentMethodDetails.exp_month")
    assert core.checkout.CompleteCheckout.calls == []


async def test_checkout_cancel_answers_the_redirect(client, core):
    core.checkout.CancelCheckout.returns(checkout_svc.CancelCheckoutResponse(redirect_url="https://c"))
    r = await client.post("/checkout/ch_1/cancel")
    assert (r.status_code, r.json()) == (200, {"redirectUrl": "https://c"})


async def test_health_ok_and_unavailable(client, core, redis):
    r = await client.get("/healthz")
    assert (r.status_code, r.json()) == (200, {"status": "ok"})
    core.health.Check.raises(rpc_error(grpc.StatusCode.UNAVAILABLE))
    r = await client.get("/healthz")
    assert (r.status_code, r.json()["status"]) == (503, "unavailable")
    assert r.json()["checks"]["core"] == "unavailable"


async def test_health_unavailable_without_redis(client, core, redis):
    redis.down = True
    r = await client.get("/healthz")
    assert (r.status_code, r.json()["checks"]) == (503, {"core": "ok", "redis": "unavailable"})
