"""pb2 -> JSON: enum tables complete; charges, refunds and disputes answered as the core rendered them
(their shape is tested in the core, tests/unit/payments/test_charge_view.py); the gateway's own shapes."""

from __future__ import annotations

import json

import pytest
from connect.v1 import api_key_pb2, charge_pb2, checkout_pb2, common_pb2, merchant_pb2

from http_gateway.edge.serialization import ENVIRONMENT_NAMES
from http_gateway.merchants.serializers import PAYOUT_SCHEDULE_NAMES, api_key_json, merchant_json
from http_gateway.payments.serializers import (
    CHARGE_STATUS_NAMES,
    CHARGE_STATUS_VALUES,
    PAYMENT_METHOD_NAMES,
    capture_json,
    charge_json,
    checkout_page_json,
    checkout_result_json,
    dispute_json,
    refund_json,
)
from tests.support.core_shapes import NOW_UNIX, captured, charge_pb, fully_populated, new_charge


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


def test_charges_refunds_and_disputes_are_answered_as_the_core_rendered_them():
    """The shape itself is tested where it is rendered (tests/unit/payments/test_charge_view.py)."""
    pb = charge_pb(fully_populated())
    body = charge_json(pb)
    assert body == json.loads(pb.object_json)
    assert (
        [refund_json(r) for r in pb.refunds]
        == body["refunds"]
        == [json.loads(r.object_json) for r in pb.refunds]
    )
    assert dispute_json(pb.dispute) == body["dispute"] == json.loads(pb.dispute.object_json)


def test_capture_result_amount_is_the_amount_captured():
    charge = captured(amount=5000, capture=3000)
    assert capture_json(charge_pb(charge)) == {
        "id": charge.id,
        "object": "charge",
        "status": "captured",
        "amount": 3000,
        "amount_captured": 3000,
        "currency": "usd",
        "fee": 117,
        "net": 2883,
        "captured_at": NOW_UNIX,
        "livemode": False,
    }


def test_capture_result_of_an_uncaptured_charge_has_nulls():
    body = capture_json(charge_pb(new_charge()))
    nulls = {"amount": None, "amount_captured": None, "fee": None, "net": None, "captured_at": None}
    assert body == body | nulls and body["status"] == "pending"


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
        "payout_account_number": None,
        "payout_account_last4": None,
        "settlement_currency": None,
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


def test_a_merchant_shows_only_the_last_four_digits_of_its_payout_account():
    merchant = merchant_pb2.Merchant(id="acct_1", email="m@example.com", payout_account_last4="1116")
    shown = merchant_json(merchant)
    assert shown["payout_account_number"] == shown["payout_account_last4"] == "1116"
