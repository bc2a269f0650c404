"""Rotating DATA_ENCRYPTION_KEY with the stack running: scripts/rotate_keys.py re-seals every webhook
secret, every sealed idempotent answer and every vaulted payment-method token under the new key while
requests flow, and everything still works; a value under a key no longer configured fails cleanly,
without a trace leaking."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from core_server.billing.domain.payment_method import SandboxBehaviour, token_behaviour
from core_server.kernel.domain.sealed import Sealed
from core_server.security.keyring import Keyring, key_id_of
from core_server.security.secret_box import SecretBox
from tests.e2e.api_client import API, PASSWORD, Merchant, create_charge, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.services import create_test_database, drop_test_database
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
KEY_A, KEY_B, KEY_C = (os.urandom(32) for _ in range(3))
ENDPOINTS = 4
KEYS = 3
# The dunning card's token remembers that its later charges decline: the re-sealed token must too.
CARDS = {"4242424242424242": SandboxBehaviour.APPROVE, "4000000000000341": SandboxBehaviour.DECLINE_GENERIC}
ACCOUNT = "000123456789"  # the merchant's payout account number, sealed at rest (DESIGN §10.9)
SEALED = ENDPOINTS + KEYS + len(CARDS) + 1 + 1  # … + the payout account + one portal session's answer


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii")


@pytest.fixture
def own_env(stack_env: dict[str, str], services: dict[str, str]) -> Iterator[dict[str, str]]:
    """A database of its own: the rotation must find exactly the rows this test made."""
    dsn = create_test_database(services["DATABASE_URL"])
    try:
        yield {**stack_env, "DATABASE_URL": dsn, "DATA_ENCRYPTION_KEY": b64(KEY_A)}
    finally:
        drop_test_database(services["DATABASE_URL"], dsn)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


class Stack:
    """One core and one gateway under the given keys; stopped on exit."""

    def __init__(self, env: dict[str, str]) -> None:
        self.core: RunningProcess = start_core(env)
        self.gateway: RunningProcess = start_gateway(env, [self.core.address])
        self.client = httpx.Client(base_url=self.gateway.base_url, timeout=15.0)

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *_: object) -> None:
        self.client.close()
        self.gateway.stop()
        self.core.stop()


def create_key(client: httpx.Client, merchant: Merchant, idempotency_key: str) -> httpx.Response:
    return client.post(
        f"{API}/keys",
        json={"name": idempotency_key, "environment": "test"},
        headers={**merchant.jwt, "Idempotency-Key": idempotency_key},
    )


def create_portal_session(client: httpx.Client, merchant: Merchant, customer: str) -> httpx.Response:
    body = {"customer_id": customer, "return_url": "https://shop.example/account"}
    return client.post(
        f"{API}/portal-sessions", json=body, headers={**merchant.auth, "Idempotency-Key": "rotate-portal"}
    )


def rotate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "rotate_keys.py"), "--batch", "1"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def attach_cards(client: httpx.Client, merchant: Merchant) -> dict[str, str]:
    """A customer with one vaulted card per entry of CARDS; their pm ids by card number."""
    customer = client.post(f"{API}/customers", json={"email": "vault@example.com"}, headers=merchant.auth)
    assert customer.status_code == 201, customer.text
    methods = {}
    for number in CARDS:
        card = {"number": number, "exp_month": 12, "exp_year": 2099, "cvc": "123"}
        method = client.post(
            f"{API}/customers/{customer.json()['id']}/payment-methods",
            json={"type": "card", "card": card},
            headers=merchant.auth,
        )
        assert method.status_code == 201, method.text
        methods[number] = method.json()["id"]
    return methods


def vaulted_behaviours(dsn: str, keyring: Keyring) -> dict[str, tuple[str, SandboxBehaviour]]:
    """Each payment method's key id and what its token, opened under `keyring`, tells the sandbox."""
    box = SecretBox(keyring, "payment-method-token")
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT id, key_id, token_sealed FROM payment_methods").fetchall()
    return {
        pm_id: (key_id, token_behaviour(box.open(Sealed(key_id, bytes(sealed)), pm_id)))
        for pm_id, key_id, sealed in rows
    }


def customer_id(dsn: str) -> str:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT id FROM customers").fetchone()
    assert row is not None
    return str(row[0])


def sealed_key_ids(dsn: str) -> tuple[set[str | None], set[bytes]]:
    """The key ids of the webhook secrets and vaulted tokens, and the headers (version + key id) of the
    sealed answers."""
    with psycopg.connect(dsn) as conn:
        endpoints = {row[0] for row in conn.execute("SELECT secret_key_id FROM webhook_endpoints")}
        endpoints |= {row[0] for row in conn.execute("SELECT key_id FROM payment_methods")}
        endpoints |= {
            row[0]
            for row in conn.execute(
                "SELECT payout_account_key_id FROM merchants WHERE payout_account_sealed IS NOT NULL"
            )
        }
        answers = {
            bytes(row[0])
            for row in conn.execute(
                "SELECT substring(response FROM 1 FOR 9) FROM idempotency_keys"
                " WHERE substring(response FROM 1 FOR 1) IN ('\\x01', '\\x02')"
            )
        }
    return endpoints, answers


def test_rotation_reseals_everything_under_the_new_key_while_the_stack_serves(
    own_env: dict[str, str], receiver: WebhookReceiver
) -> None:
    dsn = own_env["DATABASE_URL"]
    receiver.behave("/hook", status=200)
    with Stack(own_env) as old:
        merchant = sign_up(old.client)
        secrets: dict[str, str] = {}
        for n in range(ENDPOINTS):
            hook = old.client.post(
                f"{API}/webhooks",
                json={"url": receiver.url("/hook"), "events": ["charge.created"], "description": str(n)},
                headers=merchant.auth,
            )
            assert hook.status_code == 201, hook.text
            secrets[hook.json()["id"]] = hook.json()["secret"]
        created = {f"rotate-{n}": create_key(old.client, merchant, f"rotate-{n}") for n in range(KEYS)}
        assert all(r.status_code == 201 for r in created.values())
        secret_keys = {name: r.json()["secret_key"] for name, r in created.items()}
        methods = attach_cards(old.client, merchant)
        portal = create_portal_session(old.client, merchant, customer_id(dsn))
        assert portal.status_code == 201, portal.text
        account = {"payout_account_number": ACCOUNT, "current_password": PASSWORD}
        patched = old.client.patch("/api/v1/merchants/me", json=account, headers=merchant.jwt)
        assert patched.status_code == 200, patched.text
    with psycopg.connect(dsn) as conn:
        # One endpoint as sealed before migration 0009: no key id beside it.
        conn.execute("UPDATE webhook_endpoints SET secret_key_id = NULL WHERE id = %s", (min(secrets),))
    assert sealed_key_ids(dsn) == ({key_id_of(KEY_A), None}, {b"\x02" + key_id_of(KEY_A).encode()})

    rotated_env = {
        **own_env,
        "DATA_ENCRYPTION_KEY": b64(KEY_B),
        "DATA_ENCRYPTION_KEYS": b64(KEY_A),
        # Pinned: fingerprints are keyed hashes, compared and never re-sealed (docs/security.md).
        "DATA_FINGERPRINT_KEY": b64(KEY_A),
    }
    with Stack(rotated_env) as new:
        failures: list[str] = []
        stop = threading.Event()

        def traffic() -> None:
            with httpx.Client(base_url=new.gateway.base_url, timeout=15.0) as client:
                n = 0
                while not stop.is_set():
                    n += 1
                    replay = create_key(client, merchant, f"rotate-{n % KEYS}")
                    if (
                        replay.status_code != 201
                        or replay.json()["secret_key"] != secret_keys[f"rotate-{n % KEYS}"]
                    ):
                        failures.append(f"replay {n}: {replay.status_code} {replay.text[:200]}")
                    charge = client.post(
                        f"{API}/charges",
                        json={
                            "amount": 500,
                            "currency": "usd",
                            "return_url": "https://shop.example/ok",
                            "cancel_url": "https://shop.example/cancel",
                        },
                        headers=merchant.auth,
                    )
                    if charge.status_code != 201:
                        failures.append(f"charge {n}: {charge.status_code} {charge.text[:200]}")
                    time.sleep(0.1)  # under the per-key rate limit

        flowing = threading.Thread(target=traffic)
        flowing.start()
        try:
            time.sleep(0.5)
            first = rotate(rotated_env)
            time.sleep(0.5)
        finally:
            stop.set()
            flowing.join()
        assert first.returncode == 0, first.stdout + first.stderr
        assert f"re-sealed {SEALED} value(s); 0 unreadable" in first.stdout, first.stdout
        assert not failures, failures
        assert sealed_key_ids(dsn) == ({key_id_of(KEY_B)}, {b"\x02" + key_id_of(KEY_B).encode()})
        # The tokens open under the new key alone and still say what the sandbox does with them.
        expected = {methods[number]: (key_id_of(KEY_B), does) for number, does in CARDS.items()}
        assert vaulted_behaviours(dsn, Keyring(KEY_B)) == expected
        listed = new.client.get(f"{API}/customers/{customer_id(dsn)}/payment-methods", headers=merchant.auth)
        assert listed.status_code == 200 and {m["id"] for m in listed.json()["data"]} == set(methods.values())
        me = new.client.get("/api/v1/merchants/me", headers=merchant.jwt)
        assert me.status_code == 200 and me.json()["payout_account_last4"] == ACCOUNT[-4:], me.text
        again = rotate(rotated_env)
        assert again.returncode == 0 and "re-sealed 0 value(s)" in again.stdout, again.stdout

        # Deliveries after the rotation still sign with each endpoint's original whsec_ secret.
        receiver.received("/hook").clear()
        charge = create_charge(new.client, merchant)
        deadline = time.monotonic() + 15.0
        while time.monotonic() < deadline:
            ours = [d for d in receiver.received("/hook") if d.event["data"]["object"]["id"] == charge["id"]]
            if len(ours) >= ENDPOINTS:
                break
            time.sleep(0.05)
        assert len(ours) == ENDPOINTS
        for delivery in ours:
            assert sum(delivery.verifies(secret) for secret in secrets.values()) == 1
        for name, secret_key in secret_keys.items():
            replay = create_key(new.client, merchant, name)
            assert replay.status_code == 201 and replay.json()["secret_key"] == secret_key
        # A portal session's answer (sealed in the API scope, not the dashboard's) was re-sealed too.
        replayed_portal = create_portal_session(new.client, merchant, customer_id(dsn))
        assert replayed_portal.status_code == 201, replayed_portal.text
        assert replayed_portal.json()["url"] == portal.json()["url"]

    # Key A dropped and B replaced by C before a rotation: B's values are under no configured key.
    lost_env = {**own_env, "DATA_ENCRYPTION_KEY": b64(KEY_C), "DATA_FINGERPRINT_KEY": b64(KEY_A)}
    with Stack(lost_env) as lost:
        replay = create_key(lost.client, merchant, "rotate-0")
        assert replay.status_code == 500, replay.text
        assert replay.json()["error"]["type"] == "api_error"
        for leak in ("Traceback", "SecretUnreadable", "not configured", key_id_of(KEY_B)):
            assert leak not in replay.text
    refused = rotate(lost_env)
    assert refused.returncode == 1
    assert "Traceback" not in refused.stdout + refused.stderr
    assert f"re-sealed 0 value(s); {SEALED} unreadable" in refused.stdout, refused.stdout
