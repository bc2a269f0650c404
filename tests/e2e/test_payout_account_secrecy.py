"""The payout account number changes only with the merchant's password, and is sealed at rest
(DESIGN §10.9): a dashboard token alone (one hour, maybe stolen) cannot redirect the payouts."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests.e2e.api_client import PASSWORD, Merchant, assert_error, sign_up

pytestmark = pytest.mark.e2e

ME = "/api/v1/merchants/me"
ACCOUNT = "000123456789"
OTHER = "000987654321"


@pytest.fixture
def owner(client: httpx.Client) -> Iterator[Merchant]:
    merchant = sign_up(client)
    first = client.patch(
        ME, json={"payout_account_number": ACCOUNT, "current_password": PASSWORD}, headers=merchant.jwt
    )
    assert first.status_code == 200, first.text
    assert first.json()["payout_account_last4"] == ACCOUNT[-4:]
    yield merchant


def last4(client: httpx.Client, merchant: Merchant) -> str:
    return str(client.get(ME, headers=merchant.jwt).json()["payout_account_last4"])


def test_a_new_account_number_without_current_password_is_400_parameter_missing(
    client: httpx.Client, owner: Merchant
) -> None:
    response = client.patch(ME, json={"payout_account_number": OTHER}, headers=owner.jwt)
    assert_error(response, 400, "invalid_request_error", "parameter_missing", "current_password")
    cleared = client.patch(ME, json={"payout_account_number": None}, headers=owner.jwt)
    assert_error(cleared, 400, "invalid_request_error", "parameter_missing", "current_password")
    assert last4(client, owner) == ACCOUNT[-4:]  # changed nothing


def test_a_wrong_current_password_is_400_parameter_invalid_and_changes_nothing(
    client: httpx.Client, owner: Merchant
) -> None:
    body = {"payout_account_number": OTHER, "current_password": "not the password", "business_name": "Evil"}
    response = client.patch(ME, json=body, headers=owner.jwt)
    assert_error(response, 400, "invalid_request_error", "parameter_invalid", "current_password")
    me = client.get(ME, headers=owner.jwt).json()
    assert me["payout_account_last4"] == ACCOUNT[-4:] and me["business_name"] != "Evil"


def test_the_right_password_changes_it_and_other_fields_need_none(
    client: httpx.Client, owner: Merchant
) -> None:
    body = {"payout_account_number": OTHER, "current_password": PASSWORD}
    assert client.patch(ME, json=body, headers=owner.jwt).status_code == 200
    assert last4(client, owner) == OTHER[-4:]
    renamed = client.patch(ME, json={"business_name": "Renamed"}, headers=owner.jwt)
    assert renamed.status_code == 200 and renamed.json()["business_name"] == "Renamed"


def test_no_account_number_is_stored_in_clear(
    client: httpx.Client, owner: Merchant, database_url: str
) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT payout_account_number, payout_account_sealed, payout_account_key_id"
            " FROM merchants WHERE id = %s",
            (owner.id,),
        ).fetchone()
        assert row is not None
        clear, sealed, key_id = row
        assert clear == "" and sealed is not None and key_id
        assert ACCOUNT.encode() not in bytes(sealed)
        # Nowhere in the merchants table, in any column, in any row.
        dump = conn.execute("SELECT string_agg(m::text, '|') FROM merchants m").fetchone()
        assert dump is not None and ACCOUNT not in str(dump[0])


def test_guessing_current_password_with_a_stolen_token_meets_the_login_throttle(
    client: httpx.Client, owner: Merchant
) -> None:
    """The guesses count with the account's logins: a token is no way around the throttle."""
    body = {"payout_account_number": OTHER, "current_password": "wrong guess"}
    answers = [client.patch(ME, json=body, headers=owner.jwt) for _ in range(6)]
    assert [a.status_code for a in answers[:5]] == [400] * 5
    assert_error(answers[5], 429, "rate_limit_error", "login_throttled")
    assert last4(client, owner) == ACCOUNT[-4:]
