"""pb2 messages -> the spec's JSON objects, with one enum -> string table per enum."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.v1 import (
    api_key_pb2,
    charge_pb2,
    checkout_pb2,
    common_pb2,
    merchant_pb2,
)

JSON = dict[str, Any]

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
ENVIRONMENT_NAMES: Mapping[int, str | None] = {
    common_pb2.ENVIRONMENT_UNSPECIFIED: None,
    common_pb2.ENVIRONMENT_LIVE: "live",
    common_pb2.ENVIRONMENT_TEST: "test",
}
PAYOUT_SCHEDULE_NAMES: Mapping[int, str | None] = {
    # Proto: "Not set; the platform default (daily) applies."
    merchant_pb2.PAYOUT_SCHEDULE_UNSPECIFIED: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_DAILY: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_WEEKLY: "weekly",
    merchant_pb2.PAYOUT_SCHEDULE_MONTHLY: "monthly",
}


def _inverse(table: Mapping[int, str | None]) -> dict[str, int]:
    """String -> enum for input; UNSPECIFIED (0) is never a value a client may send."""
    return {name: value for value, name in table.items() if name is not None and value != 0}


CHARGE_STATUS_VALUES = _inverse(CHARGE_STATUS_NAMES)
ENVIRONMENT_VALUES = _inverse(ENVIRONMENT_NAMES)
PAYOUT_SCHEDULE_VALUES = _inverse(PAYOUT_SCHEDULE_NAMES)


def _opt(message: Any, name: str) -> Any:
    """The value of an `optional` proto field, or None (JSON null) when unset."""
    return getattr(message, name) if message.HasField(name) else None


def refund_json(refund: charge_pb2.Refund) -> JSON:
    return {
        "id": refund.id,
        "object": "refund",
        "charge": refund.charge,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status,
        "reason": _opt(refund, "reason"),
        "created": refund.created,
    }


def dispute_json(dispute: charge_pb2.Dispute) -> JSON:
    return {
        "id": dispute.id,
        "object": "dispute",
        "charge": dispute.charge,
        "amount": dispute.amount,
        "currency": dispute.currency,
        "status": dispute.status,
        "fee": dispute.fee,
        "created": dispute.created,
    }


def payment_method_details_json(charge: charge_pb2.Charge) -> JSON | None:
    if charge.HasField("card"):
        card = charge.card
        return {
            "type": "card",
            "card": {
                "brand": card.brand,
                "last4": card.last4,
                "exp_month": card.exp_month,
                "exp_year": card.exp_year,
                "funding": card.funding,
                "country": card.country,
            },
        }
    if charge.HasField("paypal"):
        return {"type": "paypal", "paypal": {"email": charge.paypal.email}}
    return None


# Charge fields that exist only once the charge got that far (capture, refund, dispute, payment).
_LATER_FIELDS = (
    "amount_captured",
    "fee",
    "net",
    "captured_at",
    "refunded_at",
    "disputed_at",
    "failure_code",
    "transaction_id",
)


def charge_json(charge: charge_pb2.Charge) -> JSON:
    """The spec's charge object; fields of later stages appear only once they exist."""
    out: JSON = {
        "id": charge.id,
        "object": "charge",
        "amount": charge.amount,
        "currency": charge.currency,
        "status": CHARGE_STATUS_NAMES.get(charge.status),
        "description": _opt(charge, "description"),
        "metadata": dict(charge.metadata),
        "checkout_url": charge.checkout_url,
        "return_url": charge.return_url,
        "cancel_url": _opt(charge, "cancel_url"),
        "customer_email": _opt(charge, "customer_email"),
        "expires_at": charge.expires_at,
        "created": charge.created,
        "livemode": charge.livemode,
        "amount_refunded": charge.amount_refunded,
        "refunds": [refund_json(r) for r in charge.refunds],
    }
    method = PAYMENT_METHOD_NAMES.get(charge.payment_method)
    if method is not None:
        out["payment_method"] = method
    details = payment_method_details_json(charge)
    if details is not None:
        out["payment_method_details"] = details
    for name in _LATER_FIELDS:
        if charge.HasField(name):
            out[name] = getattr(charge, name)
    if charge.HasField("dispute"):
        out["dispute"] = dispute_json(charge.dispute)
    return out


def capture_json(charge: charge_pb2.Charge) -> JSON:
    """DESIGN §5a: the capture result's `amount` is the amount captured."""
    captured = _opt(charge, "amount_captured")
    return {
        "id": charge.id,
        "object": "charge",
        "status": CHARGE_STATUS_NAMES.get(charge.status),
        "amount": captured,
        "amount_captured": captured,
        "currency": charge.currency,
        "fee": _opt(charge, "fee"),
        "net": _opt(charge, "net"),
        "captured_at": _opt(charge, "captured_at"),
        "livemode": charge.livemode,
    }


def list_json(data: list[JSON], *, url: str, has_more: bool, total_count: int | None = None) -> JSON:
    out: JSON = {"object": "list", "data": data, "has_more": has_more, "url": url}
    if total_count is not None:
        out["total_count"] = total_count
    return out


def api_key_json(key: api_key_pb2.ApiKey, *, include_secret: bool) -> JSON:
    """The secret key appears only in the create response; lists show `secret_key_last4` instead."""
    out: JSON = {
        "id": key.id,
        "object": "api_key",
        "name": key.name,
        "publishable_key": key.publishable_key,
    }
    if include_secret:
        out["secret_key"] = key.secret_key
    out.update(
        {
            "secret_key_last4": key.secret_key_last4,
            "environment": ENVIRONMENT_NAMES.get(key.environment),
            "created": key.created,
            "revoked": key.revoked,
            "revoked_at": _opt(key, "revoked_at"),
        }
    )
    return out


def merchant_json(merchant: merchant_pb2.Merchant) -> JSON:
    """Empty profile strings mean "not set" in the proto and are shown as null."""
    return {
        "id": merchant.id,
        "object": "merchant",
        "email": merchant.email,
        "business_name": merchant.business_name or None,
        "created": merchant.created,
        "logo_url": merchant.logo_url or None,
        "brand_color": merchant.brand_color or None,
        "support_email": merchant.support_email or None,
        "payout_schedule": PAYOUT_SCHEDULE_NAMES.get(merchant.payout_schedule, "daily"),
    }


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
            "merchantBrandColor": _opt(page, "merchant_brand_color"),
            "merchantSupportEmail": _opt(page, "merchant_support_email"),
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
