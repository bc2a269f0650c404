"""pb2 -> JSON: enum tables complete, and the spec's object shapes."""

from __future__ import annotations

import pytest
from connect.v1 import api_key_pb2, charge_pb2, checkout_pb2, common_pb2, merchant_pb2

from http_gateway.serializers import (
    CHARGE_STATUS_NAMES,
    CHARGE_STATUS_VALUES,
    ENVIRONMENT_NAMES,
    PAYMENT_METHOD_NAMES,
    PAYOUT_SCHEDULE_NAMES,
    api_key_json,
    capture_json,
    charge_json,
    checkout_page_json,
    checkout_result_json,
    merchant_json,
    refund_json,
)


@pytest.mark.parametrize(
    ("enum", "table"),
    [
        (charge_pb2.ChargeStatus, CHARGE_STATUS_NAMES),
        (charge_pb2.PaymentMethodType, PAYMENT_METHOD_NAMES),
        (common_pb2.Environment, ENVIRONMENT_NAMES),
        (merchant_pb2.PayoutSchedule, PAYOUT_SCHEDULE_NAMES),
    ],
)
def test_every_enum_value_has_an_entry(enum, table):
    assert set(table) == set(enum.values())


def test_status_strings_are_the_spec_lowercase_names():
    assert set(CHARGE_STATUS_VALUES) == {
        "pending",
        "authorized",
        "captured",
        "failed",
        "voided",
        "refunded",
        "partially_refunded",
        "expired",
        "disputed",
    }


def _pending_charge() -> charge_pb2.Charge:
    return charge_pb2.Charge(
        id="ch_" + "a" * 32,
        amount=5000,
        currency="usd",
        status=charge_pb2.CHARGE_STATUS_PENDING,
        metadata={"order": "42"},
        checkout_url="https://pay.example/checkout/ch_x",
        return_url="https://shop.example/ok",
        expires_at=1_700_086_400,
        created=1_700_000_000,
        livemode=False,
    )


def test_a_new_charge_has_nulls_for_absent_optionals_and_an_empty_refund_list():
    body = charge_json(_pending_charge())
    assert body == {
        "id": "ch_" + "a" * 32,
        "object": "charge",
        "amount": 5000,
        "currency": "usd",
        "status": "pending",
        "description": None,
        "metadata": {"order": "42"},
        "checkout_url": "https://pay.example/checkout/ch_x",
        "return_url": "https://shop.example/ok",
        "cancel_url": None,
        "customer_email": None,
        "expires_at": 1_700_086_400,
        "created": 1_700_000_000,
        "livemode": False,
        "amount_refunded": 0,
        "refunds": [],
    }


CARD = {"brand": "visa", "last4": "4242", "exp_month": 12, "exp_year": 2030}
CARD.update({"funding": "credit", "country": "US"})


def test_a_captured_card_charge_shows_payment_and_capture_fields():
    charge = _pending_charge()
    charge.status = charge_pb2.CHARGE_STATUS_PARTIALLY_REFUNDED
    charge.payment_method = charge_pb2.PAYMENT_METHOD_TYPE_CARD
    charge.card.CopyFrom(
        charge_pb2.CardDetails(**CARD, fingerprint="fp")
    )
    charge.amount_captured, charge.fee, charge.net, charge.captured_at = 5000, 175, 4825, 1_700_000_100
    charge.amount_refunded = 1000
    charge.transaction_id = "sandbox_txn_1"
    charge.refunds.add(id="re_1", charge=charge.id, amount=1000, currency="usd", status="succeeded")
    body = charge_json(charge)
    assert body["status"] == "partially_refunded"
    assert body["payment_method"] == "card"
    assert body["payment_method_details"] == {
        "type": "card",
        "card": CARD,
    }
    captured = (body["amount_captured"], body["fee"], body["net"], body["captured_at"])
    assert captured == (5000, 175, 4825, 1_700_000_100)
    assert body["refunds"][0]["reason"] is None
    assert body["refunds"][0]["object"] == "refund"
    assert body["transaction_id"] == "sandbox_txn_1"
    assert "dispute" not in body and "refunded_at" not in body


def test_paypal_details():
    charge = _pending_charge()
    charge.payment_method = charge_pb2.PAYMENT_METHOD_TYPE_PAYPAL
    charge.paypal.email = "buyer@example.com"
    details = charge_json(charge)["payment_method_details"]
    assert details == {"type": "paypal", "paypal": {"email": "buyer@example.com"}}


def test_capture_result_amount_is_the_amount_captured():
    charge = _pending_charge()
    charge.status = charge_pb2.CHARGE_STATUS_CAPTURED
    charge.amount_captured, charge.fee, charge.net, charge.captured_at = 3000, 117, 2883, 1_700_000_100
    assert capture_json(charge) == {
        "id": charge.id,
        "object": "charge",
        "status": "captured",
        "amount": 3000,
        "amount_captured": 3000,
        "currency": "usd",
        "fee": 117,
        "net": 2883,
        "captured_at": 1_700_000_100,
        "livemode": False,
    }


def test_refund_reason_is_shown_when_given():
    refund = charge_pb2.Refund(
        id="re_1", charge="ch_1", amount=5, currency="eur", status="succeeded", reason="duplicate", created=1
    )
    assert refund_json(refund)["reason"] == "duplicate"


def test_api_key_secret_only_when_asked():
    key = api_key_pb2.ApiKey(
        id="key_1",
        name="server",
        publishable_key="pk_test_x",
        secret_key="sk_test_secret",
        secret_key_last4="cret",
        environment=common_pb2.ENVIRONMENT_TEST,
        created=10,
    )
    created = api_key_json(key, include_secret=True)
    listed = api_key_json(key, include_secret=False)
    assert created["secret_key"] == "sk_test_secret"
    assert "secret_key" not in listed
    assert listed | {"secret_key": "sk_test_secret"} == created
    assert listed["environment"] == "test" and listed["revoked"] is False and listed["revoked_at"] is None


def test_merchant_profile_blanks_are_null_and_schedule_is_lowercase():
    weekly = merchant_pb2.PAYOUT_SCHEDULE_WEEKLY
    merchant = merchant_pb2.Merchant(id="acct_1", email="m@example.com", created=5, payout_schedule=weekly)
    assert merchant_json(merchant) == {
        "id": "acct_1",
        "object": "merchant",
        "email": "m@example.com",
        "business_name": None,
        "created": 5,
        "logo_url": None,
        "brand_color": None,
        "support_email": None,
        "payout_schedule": "weekly",
    }


def test_checkout_page_for_an_unknown_charge_shows_only_the_error():
    message = "Invalid charge ID format"
    page = checkout_pb2.CheckoutPage(charge_id="nope", valid=False, error_message=message, found=False)
    assert checkout_page_json(page) == {"chargeId": "nope", "valid": False, "errorMessage": message}


def test_checkout_page_is_camel_case_with_uppercase_currency():
    page = checkout_pb2.CheckoutPage(
        charge_id="ch_1",
        amount_cents=123456,
        currency="usd",
        formatted_amount="$1,234.56",
        description="Shoes",
        merchant_name="Merchant",
        return_url="https://r",
        cancel_url="https://c",
        available_payment_methods=["card", "paypal"],
        status=charge_pb2.CHARGE_STATUS_PENDING,
        valid=True,
        expires_at=99,
        test_mode=True,
        metadata={"a": "b"},
        found=True,
    )
    body = checkout_page_json(page)
    assert body["currency"] == "USD"
    assert "merchantLogoUrl" not in body and "errorMessage" not in body
    assert body["availablePaymentMethods"] == ["card", "paypal"]
    shown = (body["status"], body["valid"], body["testMode"], body["amountCents"])
    assert shown == ("pending", True, True, 123456)


def test_invalid_checkout_page_carries_the_message():
    page = checkout_pb2.CheckoutPage(
        charge_id="ch_1",
        status=charge_pb2.CHARGE_STATUS_EXPIRED,
        valid=False,
        error_message="This checkout session has expired",
        found=True,
        merchant_logo_url="https://l",
    )
    body = checkout_page_json(page)
    assert body["errorMessage"] == "This checkout session has expired"
    assert body["merchantLogoUrl"] == "https://l"


def test_checkout_decline_is_a_result_with_error_fields():
    declined = checkout_pb2.CheckoutResult(
        success=False,
        charge_id="ch_1",
        status="failed",
        redirect_url="https://c",
        error_code="insufficient_funds",
        error_message="Insufficient funds",
        test_mode=True,
    )
    ok = checkout_pb2.CheckoutResult(
        success=True, charge_id="ch_1", status="authorized", redirect_url="https://r", test_mode=True
    )
    assert checkout_result_json(declined)["errorCode"] == "insufficient_funds"
    assert checkout_result_json(ok) == {
        "success": True,
        "chargeId": "ch_1",
        "status": "authorized",
        "redirectUrl": "https://r",
        "testMode": True,
    }
