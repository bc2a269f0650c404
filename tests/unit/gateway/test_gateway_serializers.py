"""pb2 -> JSON: enum tables complete; the capture result as the core renders it; the gateway's own shapes.
Charges, refunds and disputes are tested where they are rendered (tests/unit/payments/test_charge_view.py),
merchants and API keys in tests/unit/merchants/test_merchant_view.py."""

from __future__ import annotations

import json

import pytest
from connect.v1 import charge_pb2, checkout_pb2, common_pb2, merchant_pb2

from http_gateway.edge.serialization import ENVIRONMENT_NAMES
from http_gateway.merchants.serializers import PAYOUT_SCHEDULE_NAMES
from http_gateway.payments.serializers import (
    CHARGE_STATUS_NAMES,
    CHARGE_STATUS_VALUES,
    PAYMENT_METHOD_NAMES,
    checkout_page_json,
    checkout_result_json,
)
from tests.support.core_shapes import NOW_UNIX, capture_pb, captured, new_charge


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


def test_capture_result_amount_is_the_amount_captured():
    charge = captured(amount=5000, capture=3000)
    answer = json.loads(capture_pb(charge).object_json)
    assert answer == {
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
    body = json.loads(capture_pb(new_charge()).object_json)
    nulls = {"amount": None, "amount_captured": None, "fee": None, "net": None, "captured_at": None}
    assert body == body | nulls and body["status"] == "pending"


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
