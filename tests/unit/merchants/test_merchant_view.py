"""The merchant's and API key's one public shape, tested where it is rendered
(`merchants/application/merchant_view.py`): the gateway answers this text as it is."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from core_server.kernel.domain.environment import Environment
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import Merchant, Profile
from core_server.merchants.transport.mapping import api_key_to_pb, merchant_to_pb

CREATED = datetime(1970, 1, 1, 0, 0, 5, tzinfo=UTC)


def _key(secret: str | None) -> ApiKey:
    return ApiKey(
        id="key_1",
        merchant_id="acct_1",
        name="server",
        environment=Environment.TEST,
        publishable_key="pk_test_x",
        secret_key_last4="cret",
        created=CREATED,
        secret_key=secret,
    )


def test_api_key_secret_only_in_the_create_answer() -> None:
    created = json.loads(api_key_to_pb(_key("sk_test_secret")).object_json)
    listed = json.loads(api_key_to_pb(_key(None)).object_json)
    assert created["secret_key"] == "sk_test_secret"
    assert "secret_key" not in listed
    assert list(created) == [
        "id",
        "object",
        "name",
        "publishable_key",
        "secret_key",
        "secret_key_last4",
        "environment",
        "created",
        "revoked",
        "revoked_at",
    ]
    assert listed | {"secret_key": "sk_test_secret"} == created
    assert listed["environment"] == "test" and listed["revoked"] is False and listed["revoked_at"] is None


def test_merchant_profile_blanks_are_null_and_schedule_is_lowercase() -> None:
    merchant = Merchant("acct_1", "m@example.com", "hash", Profile(payout_schedule="weekly"), CREATED)
    assert json.loads(merchant_to_pb(merchant).object_json) == {
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


def test_the_payout_account_is_shown_by_its_last_four_digits_only() -> None:
    profile = Profile(payout_account_number="000123456789", settlement_currency="eur")
    view = json.loads(merchant_to_pb(Merchant("acct_1", "m@x.com", "h", profile, CREATED)).object_json)
    assert view["payout_account_number"] == view["payout_account_last4"] == "6789"
    assert "000123456789" not in json.dumps(view) and view["payout_schedule"] == "daily"
