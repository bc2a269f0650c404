"""The checkout page data and results the gateway builds itself (camelCase, spec: Checkout page data),
with the charge status table. Charges, refunds, disputes and the capture result are the core's
rendering (`object_json`), answered as they are."""

from __future__ import annotations

from collections.abc import Mapping

from connect.v1 import charge_pb2, checkout_pb2

from http_gateway.edge.serialization import JSON, inverse, opt

CHARGE_STATUS_NAMES: Mapping[int, str | None] = {
    charge_pb2.CHARGE_STATUS_UNSPECIFIED: None,
    charge_pb2.CHARGE_STATUS_PENDING: "pending",
    charge_pb2.CHARGE_STATUS_AUTHORIZED: "authorized",
    charge_pb2.CHARGE_STATUS_CAPTURED: "captured",
    charge_pb2.CHARGE_STATUS_FAILED: "failed",
    charge_pb2.CHARGE_STATUS_VOIDED: "voided",
    charge_pb2.CHARGE_STATUS_REFUNDED: "refunded",
    charge_pb2.CHARGE_STATUS_PARTIALLY_REFUNDED: "partially_refunded",
    charge_pb2.CHARGE_STATUS_EXPIRED: "expired",
    charge_pb2.CHARGE_STATUS_DISPUTED: "disputed",
}
PAYMENT_METHOD_NAMES: Mapping[int, str | None] = {
    charge_pb2.PAYMENT_METHOD_TYPE_UNSPECIFIED: None,
    charge_pb2.PAYMENT_METHOD_TYPE_CARD: "card",
    charge_pb2.PAYMENT_METHOD_TYPE_PAYPAL: "paypal",
}
CHARGE_STATUS_VALUES = inverse(CHARGE_STATUS_NAMES)


def checkout_page_json(page: checkout_pb2.CheckoutPage) -> JSON:
    """The spec's camelCase page data; an unknown or malformed id shows only the error."""
    if not page.found:
        return {"chargeId": page.charge_id, "valid": False, "errorMessage": page.error_message}
    out: JSON = {
        "chargeId": page.charge_id,
        "amountCents": page.amount_cents,
        "currency": page.currency.upper(),
        "formattedAmount": page.formatted_amount,
        "description": page.description or None,
        "merchantName": page.merchant_name,
    }
    if page.HasField("merchant_logo_url"):
        out["merchantLogoUrl"] = page.merchant_logo_url
    out.update(
        {
            "merchantBrandColor": opt(page, "merchant_brand_color"),
            "merchantSupportEmail": opt(page, "merchant_support_email"),
            "returnUrl": page.return_url,
            "cancelUrl": page.cancel_url or None,
            "availablePaymentMethods": list(page.available_payment_methods),
            "status": CHARGE_STATUS_NAMES.get(page.status),
            "valid": page.valid,
        }
    )
    if not page.valid:
        out["errorMessage"] = page.error_message
    out.update({"expiresAt": page.expires_at, "testMode": page.test_mode, "metadata": dict(page.metadata)})
    return out


def checkout_result_json(result: checkout_pb2.CheckoutResult) -> JSON:
    """A decline is a result (HTTP 200, success false) with errorCode/errorMessage; success has neither."""
    out: JSON = {
        "success": result.success,
        "chargeId": result.charge_id,
        "status": result.status,
        "redirectUrl": result.redirect_url,
    }
    if result.error_code:
        out["errorCode"] = result.error_code
    if result.error_message:
        out["errorMessage"] = result.error_message
    out["testMode"] = result.test_mode
    return out
