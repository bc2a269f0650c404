"""The one public shape of a merchant and of an API key: what the REST API answers, rendered here once
and carried to the gateway as `object_json` (docs/architecture.md "a resource's public JSON")."""

from __future__ import annotations

from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import PAYOUT_SCHEDULES, Merchant


def merchant_view(merchant: Merchant) -> JSON:
    """DESIGN §3's merchant object. An empty profile string means "not set" and is shown as null; the
    payout account is shown back as its last four digits only (the number is write-only), under its own
    name and as `payout_account_last4` for clients that read it before."""
    profile = merchant.profile
    last4 = profile.payout_account_number[-4:] or None
    schedule = profile.payout_schedule if profile.payout_schedule in PAYOUT_SCHEDULES else "daily"
    return {
        "id": merchant.id,
        "object": "merchant",
        "email": merchant.email,
        "business_name": profile.business_name or None,
        "created": unix_seconds(merchant.created),
        "logo_url": profile.logo_url or None,
        "brand_color": profile.brand_color or None,
        "support_email": profile.support_email or None,
        "payout_schedule": schedule,
        "payout_account_number": last4,
        "payout_account_last4": last4,
        "settlement_currency": profile.settlement_currency or None,
    }


def api_key_view(key: ApiKey) -> JSON:
    """The secret key is set only on the key creation returns, so only that answer (and its sealed
    replay) shows it; every other answer shows `secret_key_last4`."""
    view: JSON = {
        "id": key.id,
        "object": "api_key",
        "name": key.name,
        "publishable_key": key.publishable_key,
    }
    if key.secret_key is not None:
        view["secret_key"] = key.secret_key
    view.update(
        {
            "secret_key_last4": key.secret_key_last4,
            "environment": key.environment.value,
            "created": unix_seconds(key.created),
            "revoked": key.revoked,
            "revoked_at": unix_seconds(key.revoked_at) if key.revoked_at is not None else None,
        }
    )
    return view


def merchant_json(merchant: Merchant) -> str:
    """The view as carried to the gateway in `object_json`."""
    return compact_json(merchant_view(merchant))


def api_key_json(key: ApiKey) -> str:
    return compact_json(api_key_view(key))
