"""Merchant and API key domain ⇄ protobuf conversion: the public object as the core renders it
(`object_json`), and the typed fields the gateway's own logic reads."""

from __future__ import annotations

from connect.v1 import (
    api_key_pb2,
    merchant_pb2,
)

from core_server.kernel.domain.public_json import unix_seconds
from core_server.kernel.transport.mapping import ENVIRONMENT_TO_PB
from core_server.merchants.application.merchant_view import api_key_json, merchant_json
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import Merchant

SCHEDULE_TO_PB = {
    "daily": merchant_pb2.PAYOUT_SCHEDULE_DAILY,
    "weekly": merchant_pb2.PAYOUT_SCHEDULE_WEEKLY,
    "monthly": merchant_pb2.PAYOUT_SCHEDULE_MONTHLY,
}


SCHEDULE_FROM_PB = {v: k for k, v in SCHEDULE_TO_PB.items()}


def merchant_to_pb(merchant: Merchant) -> merchant_pb2.Merchant:
    profile = merchant.profile
    return merchant_pb2.Merchant(
        id=merchant.id,
        email=merchant.email,
        business_name=profile.business_name,
        logo_url=profile.logo_url,
        brand_color=profile.brand_color,
        support_email=profile.support_email,
        payout_schedule=SCHEDULE_TO_PB.get(profile.payout_schedule, merchant_pb2.PAYOUT_SCHEDULE_DAILY),
        created=unix_seconds(merchant.created),
        payout_account_last4=profile.payout_account_number[-4:],
        settlement_currency=profile.settlement_currency,
        token_version=merchant.token_version,
        object_json=merchant_json(merchant),
    )


def api_key_to_pb(key: ApiKey) -> api_key_pb2.ApiKey:
    pb = api_key_pb2.ApiKey(
        id=key.id,
        name=key.name,
        publishable_key=key.publishable_key,
        secret_key=key.secret_key or "",
        secret_key_last4=key.secret_key_last4,
        environment=ENVIRONMENT_TO_PB[key.environment],
        created=unix_seconds(key.created),
        revoked=key.revoked,
        object_json=api_key_json(key),
    )
    if key.revoked_at is not None:
        pb.revoked_at = unix_seconds(key.revoked_at)
    return pb
