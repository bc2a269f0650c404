"""pb2 merchants and API keys -> the spec's JSON objects, with the payout schedule table."""

from __future__ import annotations

from collections.abc import Mapping

from connect.v1 import api_key_pb2, merchant_pb2

from http_gateway.edge.serialization import ENVIRONMENT_NAMES, JSON, inverse, opt

PAYOUT_SCHEDULE_NAMES: Mapping[int, str | None] = {
    # Proto: "Not set; the platform default (daily) applies."
    merchant_pb2.PAYOUT_SCHEDULE_UNSPECIFIED: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_DAILY: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_WEEKLY: "weekly",
    merchant_pb2.PAYOUT_SCHEDULE_MONTHLY: "monthly",
}
PAYOUT_SCHEDULE_VALUES = inverse(PAYOUT_SCHEDULE_NAMES)


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
            "revoked_at": opt(key, "revoked_at"),
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
        # DESIGN §3: the account number is shown back as its last four digits only, under its own name;
        # `payout_account_last4` says the same for clients that read it before.
        "payout_account_number": merchant.payout_account_last4 or None,
        "payout_account_last4": merchant.payout_account_last4 or None,
        "settlement_currency": merchant.settlement_currency or None,
    }
