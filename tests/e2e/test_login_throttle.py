"""The per-account login throttle through the gateway (docs/security.md): after five wrong passwords for
one e-mail, 429 `login_throttled` with Retry-After, for the right password too, while another e-mail
still logs in."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests.e2e.api_client import assert_error, sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

TOKEN = "/api/v1/auth/token"


def test_repeated_wrong_passwords_throttle_one_email_only(client: httpx.Client) -> None:
    victim = sign_up(client)
    bystander = sign_up(client)
    for _ in range(5):
        wrong = client.post(TOKEN, json={"email": victim.email, "password": "not the password"})
        assert_error(wrong, 401, "authentication_error", "invalid_credentials")
    for password in ("not the password", "correct horse"):  # the right one is not even checked
        refused = client.post(TOKEN, json={"email": victim.email.upper(), "password": password})
        assert_error(refused, 429, "rate_limit_error", "login_throttled")
        assert refused.headers["Retry-After"] == "1"
    assert client.post(TOKEN, json={"email": bystander.email, "password": "correct horse"}).status_code == 200


def test_an_unknown_email_is_answered_like_a_known_one(client: httpx.Client) -> None:
    unknown = f"nobody{uuid.uuid4().hex[:10]}@example.com"
    for _ in range(5):
        assert_error(
            client.post(TOKEN, json={"email": unknown, "password": "guess one"}), 401, "authentication_error"
        )
    refused = client.post(TOKEN, json={"email": unknown, "password": "guess two"})
    assert_error(refused, 429, "rate_limit_error", "login_throttled")
    assert int(refused.headers["Retry-After"]) >= 1


@contextmanager
def client_at(gateway: RunningProcess, address: str) -> Iterator[httpx.Client]:
    """A client whose connections leave from `address` (any of 127/8 on loopback): the gateway, fronted
    by no proxy, takes the socket peer as the client address."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=gateway.base_url, timeout=15.0, transport=transport) as http:
        yield http


def test_the_owner_signs_in_at_once_from_its_known_address_during_a_guessing_attack(
    gateway_process: RunningProcess,
) -> None:
    """DESIGN §10.9: failures count per (account, address); the address the owner signed in from is not
    slowed by another address's guesses, so nobody can lock the owner out from elsewhere."""
    with client_at(gateway_process, "127.0.0.2") as owner, client_at(gateway_process, "127.0.0.3") as guesser:
        victim = sign_up(owner)  # signs in once from 127.0.0.2: a known address from now on
        for _ in range(5):
            wrong = guesser.post(TOKEN, json={"email": victim.email, "password": "not the password"})
            assert_error(wrong, 401, "authentication_error", "invalid_credentials")
        for _ in range(3):
            refused = guesser.post(TOKEN, json={"email": victim.email, "password": "guess again"})
            assert_error(refused, 429, "rate_limit_error", "login_throttled")
        signed_in = owner.post(TOKEN, json={"email": victim.email, "password": "correct horse"})
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["access_token"]
    # A third, unknown address shares the account's record of unknown addresses: no fresh guesses there.
    with client_at(gateway_process, "127.0.0.4") as other:
        refused = other.post(TOKEN, json={"email": victim.email, "password": "yet another guess"})
        assert_error(refused, 429, "rate_limit_error", "login_throttled")
