"""The payment-method vault through the gateway: attach (card, PayPal), the sandbox's refusals with the
decline code, default rules, list, detach, set default, isolation, idempotent replay, events — and that
no card number, CVC or gateway token is stored in clear."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import httpx
import psycopg
import pytest

from core_server.billing.domain.payment_method import SandboxBehaviour, token_behaviour
from core_server.kernel.domain.sealed import Sealed
from core_server.security.keyring import Keyring
from core_server.security.secret_box import SecretBox
from tests.conftest import TEST_DATA_ENCRYPTION_KEY
from tests.e2e.api_client import API, Merchant, assert_error, sign_up

CARD: dict[str, Any] = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "987"}
DUNNING_CARD = "4000000000000341"


def new_customer(client: httpx.Client, merchant: Merchant) -> dict[str, Any]:
    email = f"c{uuid.uuid4().hex[:12]}@example.com"
    created = client.post(f"{API}/customers", json={"email": email}, headers=merchant.auth)
    assert created.status_code == 201, created.text
    customer: dict[str, Any] = created.json()
    return customer


def attach(client: httpx.Client, merchant: Merchant, customer_id: str, **body: Any) -> httpx.Response:
    payload = body or {"type": "card", "card": CARD}
    return client.post(f"{API}/customers/{customer_id}/payment-methods", json=payload, headers=merchant.auth)


def customer_of(client: httpx.Client, merchant: Merchant, customer_id: str) -> dict[str, Any]:
    got: dict[str, Any] = client.get(f"{API}/customers/{customer_id}", headers=merchant.auth).json()
    return got


def test_attach_list_default_and_detach(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    first = attach(client, merchant, customer["id"])
    assert first.status_code == 201, first.text
    card = first.json()
    assert card["id"].startswith("pm_") and len(card["id"]) == 27
    assert card == {
        "id": card["id"],
        "object": "payment_method",
        "customer": customer["id"],
        "type": "card",
        "card": {
            "brand": "visa",
            "last4": "4242",
            "exp_month": 12,
            "exp_year": 2099,
            "funding": "credit",
            "country": "US",
        },
        "created": card["created"],
        "livemode": False,
    }
    # The first method becomes the default; a later one does not, unless asked.
    assert customer_of(client, merchant, customer["id"])["default_payment_method"] == card["id"]
    paypal = attach(
        client, merchant, customer["id"], type="paypal", paypal={"email": "buyer@example.com"}
    ).json()
    assert paypal["paypal"] == {"email": "buyer@example.com"} and "card" not in paypal
    assert customer_of(client, merchant, customer["id"])["default_payment_method"] == card["id"]
    dunning = attach(
        client, merchant, customer["id"], type="card", card={**CARD, "number": DUNNING_CARD}, set_default=True
    )
    assert dunning.status_code == 201, dunning.text  # attaches fine; later charges decline
    assert customer_of(client, merchant, customer["id"])["default_payment_method"] == dunning.json()["id"]

    url = f"{API}/customers/{customer['id']}/payment-methods"
    listed = client.get(url, headers=merchant.auth).json()
    assert [m["id"] for m in listed["data"]] == [dunning.json()["id"], paypal["id"], card["id"]]
    assert listed["total_count"] == 3 and listed["has_more"] is False
    page = client.get(url, params={"limit": 1, "starting_after": paypal["id"]}, headers=merchant.auth).json()
    assert [m["id"] for m in page["data"]] == [card["id"]]

    # PATCH sets the default to one of the customer's methods.
    patched = client.patch(
        f"{API}/customers/{customer['id']}",
        json={"default_payment_method": paypal["id"]},
        headers=merchant.auth,
    )
    assert patched.status_code == 200 and patched.json()["default_payment_method"] == paypal["id"]
    # Detaching a method that is not the default leaves the default; detaching the default clears it.
    removed = client.delete(f"{url}/{card['id']}", headers=merchant.auth)
    assert removed.status_code == 200 and removed.json() == card
    assert customer_of(client, merchant, customer["id"])["default_payment_method"] == paypal["id"]
    assert client.delete(f"{url}/{paypal['id']}", headers=merchant.auth).status_code == 200
    assert customer_of(client, merchant, customer["id"])["default_payment_method"] is None
    again = client.delete(f"{url}/{paypal['id']}", headers=merchant.auth)
    assert_error(again, 404, "resource_not_found", "resource_missing", "id")


@pytest.mark.parametrize(
    ("number", "code"),
    [
        ("4000000000000002", "generic_decline"),
        ("4000000000009995", "insufficient_funds"),
        ("5555555555554444", "generic_decline"),
    ],
)
def test_a_card_the_simulator_declines_is_refused_with_its_code(
    client: httpx.Client, number: str, code: str
) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    refused = attach(client, merchant, customer["id"], type="card", card={**CARD, "number": number})
    assert_error(refused, 400, "invalid_request_error", code, "card")
    assert (
        client.get(f"{API}/customers/{customer['id']}/payment-methods", headers=merchant.auth).json()[
            "total_count"
        ]
        == 0
    )


def test_errors_name_their_param(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"type": "card"}, "parameter_missing", "card"),
        ({"type": "bank"}, "parameter_invalid", "type"),
        ({"type": "card", "card": {**CARD, "number": "42"}}, "parameter_invalid", "card.number"),
        ({"type": "card", "card": {**CARD, "cvc": "1"}}, "parameter_invalid", "card.cvc"),
        ({"type": "card", "card": {**CARD, "exp_year": 2001}}, "parameter_invalid", "card.exp_year"),
        ({"type": "card", "card": {"number": "4242424242424242"}}, "parameter_missing", "card.exp_month"),
        ({"type": "paypal", "paypal": {"email": "nope"}}, "parameter_invalid", "paypal.email"),
        ({"type": "paypal", "paypal": {"email": "a@b.co"}, "card": CARD}, "parameter_invalid", "card"),
    ]
    for body, code, param in cases:
        assert_error(
            attach(client, merchant, customer["id"], **body), 400, "invalid_request_error", code, param
        )
    declined = attach(
        client, merchant, customer["id"], type="paypal", paypal={"email": "declined@sandbox.paypal.test"}
    )
    assert_error(declined, 400, "invalid_request_error", "generic_decline", "paypal")


def test_a_foreign_customer_or_method_answers_like_an_unknown_one(client: httpx.Client) -> None:
    owner, other = sign_up(client), sign_up(client)
    customer = new_customer(client, owner)
    method = attach(client, owner, customer["id"]).json()
    for response in (
        attach(client, other, customer["id"]),
        client.get(f"{API}/customers/{customer['id']}/payment-methods", headers=other.auth),
        attach(client, owner, "cus_" + "x" * 24),
    ):
        assert_error(response, 404, "resource_not_found", "resource_missing", "id")
    foreign = client.delete(
        f"{API}/customers/{customer['id']}/payment-methods/{method['id']}", headers=other.auth
    )
    assert_error(foreign, 404, "resource_not_found", "resource_missing", "id")
    # Another customer's method can be neither detached through this customer nor made its default.
    second = new_customer(client, owner)
    wrong = client.delete(
        f"{API}/customers/{second['id']}/payment-methods/{method['id']}", headers=owner.auth
    )
    assert_error(wrong, 404, "resource_not_found", "resource_missing", "id")
    patched = client.patch(
        f"{API}/customers/{second['id']}", json={"default_payment_method": method["id"]}, headers=owner.auth
    )
    assert_error(patched, 400, "invalid_request_error", "parameter_invalid", "default_payment_method")


def test_an_idempotent_attach_replays_the_same_method(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    headers = {**merchant.auth, "Idempotency-Key": uuid.uuid4().hex}
    url = f"{API}/customers/{customer['id']}/payment-methods"
    first = client.post(url, json={"type": "card", "card": CARD}, headers=headers)
    again = client.post(url, json={"type": "card", "card": CARD}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    assert client.get(url, headers=merchant.auth).json()["total_count"] == 1


def events_of(client: httpx.Client, merchant: Merchant, event_type: str) -> list[dict[str, Any]]:
    listed = client.get(f"{API}/events", params={"type": event_type}, headers=merchant.auth)
    assert listed.status_code == 200, listed.text
    events: list[dict[str, Any]] = listed.json()["data"]
    return events


def test_events_carry_the_rest_objects(client: httpx.Client) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    method = attach(client, merchant, customer["id"]).json()
    [attached] = events_of(client, merchant, "payment_method.attached")
    assert attached["data"]["object"] == method
    # The first method became the default: the customer changed, and says so.
    [updated] = events_of(client, merchant, "customer.updated")
    assert updated["data"]["object"] == customer_of(client, merchant, customer["id"])
    client.delete(f"{API}/customers/{customer['id']}/payment-methods/{method['id']}", headers=merchant.auth)
    [detached] = events_of(client, merchant, "payment_method.detached")
    assert detached["data"]["object"] == method
    cleared = events_of(client, merchant, "customer.updated")[0]["data"]["object"]
    assert (
        cleared == customer_of(client, merchant, customer["id"]) and cleared["default_payment_method"] is None
    )


def test_no_number_cvc_or_token_is_stored_in_clear(client: httpx.Client, stack_env: dict[str, str]) -> None:
    merchant = sign_up(client)
    customer = new_customer(client, merchant)
    method = attach(
        client, merchant, customer["id"], type="card", card={**CARD, "number": DUNNING_CARD}
    ).json()
    with psycopg.connect(stack_env["DATABASE_URL"]) as conn:
        # Every column as text, except the ciphertext, which is searched as bytes below.
        row = conn.execute(
            "SELECT (to_jsonb(p) - 'token_sealed')::text, token_sealed, key_id"
            " FROM payment_methods p WHERE id = %s",
            (method["id"],),
        ).fetchone()
        events = conn.execute(
            "SELECT payload::text FROM events WHERE merchant_id = %s", (merchant.id,)
        ).fetchall()
    assert row is not None and events
    columns, sealed, key_id = row[0], bytes(row[1]), row[2]
    assert key_id  # the key that sealed the token sits beside it
    for text in (columns, *(e[0] for e in events)):
        assert DUNNING_CARD not in text and "tok_sandbox_" not in text
        assert '"987"' not in text and "cvc" not in text
    for secret in (DUNNING_CARD, str(CARD["cvc"]), "tok_sandbox_"):
        assert secret.encode() not in sealed
    # The token is there, sealed under the current key for this row, and remembers that the dunning
    # card's later charges decline.
    box = SecretBox(Keyring(base64.b64decode(TEST_DATA_ENCRYPTION_KEY)), "payment-method-token")
    assert key_id == box.current_id
    token = box.open(Sealed(key_id, sealed), method["id"])
    assert token_behaviour(token) is SandboxBehaviour.DECLINE_GENERIC
