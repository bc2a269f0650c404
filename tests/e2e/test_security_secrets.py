"""Secrets stay secret: never in a log line, never in clear in the database.

A core and a gateway of their own run with LOG_LEVEL=DEBUG (the most a log will ever say), one full
merchant flow goes through them (sign-up, login, keys, charge, card checkout through the JSON API and
the no-JS form, webhook endpoint, idempotent replays, a few refused credentials), and then:
- both logs are scanned for every credential, secret and card datum the flow used, and for their
  generic shapes (any `sk_test_…`/`sk_live_…`, `whsec_…`, JWT, card number);
- every row of every table is read directly with psycopg: secret keys exist only as SHA-256 digests,
  webhook secrets and vaulted payment tokens only sealed (AES-GCM), and no stored value, text or bytes,
  holds a secret, a password, a card number, a CVC or a gateway token.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
import pytest
from psycopg import sql

from core_server.kernel.domain.sealed import Sealed
from core_server.security.keyring import Keyring
from core_server.security.secret_box import SecretBox
from http_gateway.pipeline.idempotency import fingerprint
from tests.conftest import TEST_DATA_ENCRYPTION_KEY
from tests.e2e.api_client import API
from tests.support.processes import RunningProcess, free_port, start_core, start_gateway
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

CARD = "4242424242424242"
DECLINED_CARD = "4000000000000002"
FORM_CARD = "4111111111111111"
VAULT_CARD = "4012888888881881"  # attached to a customer: the vault keeps only a sealed gateway token
CVC = "737"  # also a fresh one per run below: a fixed CVC could sit in some id by chance
GENERIC_PATTERNS = {
    "secret key": re.compile(r"sk_(?:test|live)_[A-Za-z0-9]{32}"),
    "webhook secret": re.compile(r"whsec_[A-Za-z0-9]{16,}"),
    "JWT": re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    "card number": re.compile(r"(?<![0-9])4[0-9]{12,18}(?![0-9])"),
    "gateway token": re.compile(r"tok_sandbox_[A-Za-z0-9_]+"),
}


@dataclass
class Flow:
    """Everything secret the flow handled, and the Request-Ids of its calls."""

    secrets: dict[str, str] = field(default_factory=dict)
    cvcs: list[str] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=list)
    charge_ids: list[str] = field(default_factory=list)
    endpoint_id: str = ""
    key_id: str = ""
    checkout_body: bytes = b""


@pytest.fixture(scope="module")
def debug_stack(stack_env: dict[str, str]) -> Iterator[tuple[RunningProcess, RunningProcess]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**stack_env, "LOG_LEVEL": "DEBUG", "CHECKOUT_BASE_URL": base, "PUBLIC_BASE_URL": base}
    with start_core(env) as core, start_gateway(env, [core.address], port=port) as gateway:
        yield core, gateway


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


def _json(flow: Flow, response: httpx.Response, status: int) -> Any:
    assert response.status_code == status, response.text
    flow.request_ids.append(response.headers["Request-Id"])
    return (
        response.json() if response.headers.get("content-type", "").startswith("application/json") else None
    )


def _sign_up_and_keys(http: httpx.Client, flow: Flow) -> tuple[dict[str, str], dict[str, str]]:
    email = f"sec{secrets.token_hex(6)}@example.com"
    password = f"pw-{secrets.token_urlsafe(12)}"
    flow.secrets["password"] = password
    _json(flow, http.post("/api/v1/merchants", json={"email": email, "password": password}), 201)
    wrong = f"wrong-{secrets.token_urlsafe(12)}"
    flow.secrets["wrong password"] = wrong
    _json(flow, http.post("/api/v1/auth/token", json={"email": email, "password": wrong}), 401)
    token = _json(flow, http.post("/api/v1/auth/token", json={"email": email, "password": password}), 200)
    flow.secrets["jwt"] = jwt = token["access_token"]
    flow.secrets["jwt signature"] = jwt.rsplit(".", 1)[1]
    dashboard = {"Authorization": f"Bearer {jwt}"}
    keys: dict[str, dict[str, str]] = {}
    for environment in ("test", "live"):
        request: dict[str, Any] = {
            "url": f"{API}/keys",
            "json": {"name": environment, "environment": environment},
            "headers": {**dashboard, "Idempotency-Key": f"key-{environment}"},
        }
        created = _json(flow, http.post(**request), 201)
        replayed = _json(flow, http.post(**request), 201)
        assert replayed["secret_key"] == created["secret_key"]  # a replay still hands the key over
        flow.secrets[f"sk_{environment}"] = created["secret_key"]
        keys[environment] = {"Authorization": f"Bearer {created['secret_key']}"}
        if environment == "test":
            flow.key_id = created["id"]
    # Credentials used where they do not belong, and a revoked-looking junk key.
    _json(flow, http.get(f"{API}/keys", headers=keys["test"]), 401)
    _json(flow, http.get(f"{API}/charges", headers=dashboard), 401)
    _json(flow, http.get(f"{API}/charges", headers={"Authorization": f"Bearer sk_test_{'Z' * 32}"}), 401)
    return keys["test"], keys["live"]


def _charge(http: httpx.Client, flow: Flow, sk: dict[str, str]) -> str:
    body = {
        "amount": 4200,
        "currency": "usd",
        "return_url": "https://shop.example/ok",
        "customer_email": "buyer@example.com",
    }
    charge_id: str = _json(flow, http.post(f"{API}/charges", json=body, headers=sk), 201)["id"]
    flow.charge_ids.append(charge_id)
    return charge_id


def _checkouts(http: httpx.Client, flow: Flow, sk: dict[str, str]) -> None:
    paid = _charge(http, flow, sk)
    _json(flow, http.get(f"/checkout/{paid}", headers={"Accept": "text/html"}), 200)
    card = {"card_number": CARD, "exp_month": 12, "exp_year": 2099, "cvc": flow.cvcs[0]}
    flow.checkout_body = json.dumps({"paymentMethod": "card", "paymentMethodDetails": card}).encode()
    request: dict[str, Any] = {
        "url": f"/checkout/{paid}/complete",
        "content": flow.checkout_body,
        "headers": {"Content-Type": "application/json", "Idempotency-Key": "pay-1"},
    }
    assert _json(flow, http.post(**request), 200)["success"] is True
    _json(flow, http.post(**request), 200)  # replayed
    declined = _charge(http, flow, sk)
    bad = {**card, "card_number": DECLINED_CARD, "exp_month": 13}
    _json(
        flow,
        http.post(
            f"/checkout/{declined}/complete", json={"paymentMethod": "card", "paymentMethodDetails": bad}
        ),
        400,
    )
    decline = {**card, "card_number": DECLINED_CARD}
    assert (
        _json(
            flow,
            http.post(
                f"/checkout/{declined}/complete",
                json={"paymentMethod": "card", "paymentMethodDetails": decline},
            ),
            200,
        )["success"]
        is False
    )
    form = _charge(http, flow, sk)
    fields = {
        "payment_method": "card",
        "card_number": FORM_CARD[:8] + " " + FORM_CARD[8:],
        "exp_month": "12",
        "exp_year": "99",
        "cvc": flow.cvcs[1],
    }
    _json(flow, http.post(f"/checkout/{form}", data={**fields, "exp_month": "1x"}), 400)
    _json(flow, http.post(f"/checkout/{form}", data=fields), 303)


def _webhooks(http: httpx.Client, flow: Flow, sk: dict[str, str], receiver: WebhookReceiver) -> None:
    request: dict[str, Any] = {
        "url": f"{API}/webhooks",
        "json": {"url": receiver.url("/sec"), "events": ["*"]},
        "headers": {**sk, "Idempotency-Key": "hook-1"},
    }
    created = _json(flow, http.post(**request), 201)
    assert _json(flow, http.post(**request), 201)["secret"] == created["secret"]
    flow.secrets["webhook secret"] = created["secret"]
    flow.endpoint_id = created["id"]
    charge_id = _charge(http, flow, sk)
    receiver.wait_for_sync(1, "/sec")
    _json(flow, http.get(f"{API}/charges/{charge_id}", headers=sk), 200)


def _vault(http: httpx.Client, flow: Flow, sk: dict[str, str]) -> None:
    """A customer with a vaulted card (its CVC the flow's third) and a PayPal account."""
    customer = _json(
        flow, http.post(f"{API}/customers", json={"email": "payer@example.com"}, headers=sk), 201
    )
    card = {"number": VAULT_CARD, "exp_month": 11, "exp_year": 2098, "cvc": flow.cvcs[2]}
    attach = f"{API}/customers/{customer['id']}/payment-methods"
    method = _json(flow, http.post(attach, json={"type": "card", "card": card}, headers=sk), 201)
    assert method["card"]["last4"] == VAULT_CARD[-4:] and "number" not in method["card"]
    paypal = {"type": "paypal", "paypal": {"email": "payer@example.com"}}
    _json(flow, http.post(attach, json=paypal, headers=sk), 201)
    _json(flow, http.get(f"{API}/customers/{customer['id']}/payment-methods", headers=sk), 200)


@pytest.fixture(scope="module")
def flow(debug_stack: tuple[RunningProcess, RunningProcess], receiver: WebhookReceiver) -> Flow:
    _, gateway = debug_stack
    done = Flow(
        cvcs=[
            f"{secrets.randbelow(9000) + 1000}",
            f"{secrets.randbelow(900) + 100}",
            f"{secrets.randbelow(9000) + 1000}",
        ]
    )
    with httpx.Client(base_url=gateway.base_url, timeout=15.0) as http:
        sk_test, sk_live = _sign_up_and_keys(http, done)
        _charge(http, done, sk_live)
        _checkouts(http, done, sk_test)
        _webhooks(http, done, sk_test, receiver)
        _vault(http, done, sk_test)
    done.secrets.update(
        {
            "card": CARD,
            "declined card": DECLINED_CARD,
            "form card": FORM_CARD,
            "form card middle": FORM_CARD[6:12] + FORM_CARD[12:],
            "vaulted card": VAULT_CARD,
        }
    )
    return done


def _cvc_leaks(text: str, cvc: str) -> list[str]:
    """A CVC as a value (JSON, form or key=value), not as digits that happen to sit inside a random id."""
    value = re.escape(cvc)
    patterns = (rf'"{value}"', rf"'{value}'", rf"cvc\W{{0,6}}{value}(?![0-9])")
    return [p for p in patterns if re.search(p, text, re.IGNORECASE)]


@pytest.mark.parametrize("process", ["core", "gateway"])
def test_logs_hold_no_secret(
    flow: Flow, debug_stack: tuple[RunningProcess, RunningProcess], process: str
) -> None:
    running = dict(zip(("core", "gateway"), debug_stack, strict=True))[process]
    log = running.log_text()
    assert sum(request_id in log for request_id in flow.request_ids) >= len(flow.request_ids) // 2, (
        "the flow's requests are not in this log: the scan would prove nothing"
    )
    assert '"level": "debug"' in log  # DEBUG really was on
    leaked = [name for name, value in flow.secrets.items() if value in log]
    leaked += [name for name, pattern in GENERIC_PATTERNS.items() if pattern.search(log)]
    leaked += [f"cvc {pattern}" for cvc in flow.cvcs for pattern in _cvc_leaks(log, cvc)]
    assert not leaked, f"{process} log {running.log_path} holds: {leaked}"


def _database_values(database_url: str) -> Iterator[tuple[str, str, Any]]:
    """(table, column, value) of every row of every table of the schema."""
    with psycopg.connect(database_url) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        ]
        for table in tables:
            cursor = conn.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table)))
            columns = [column.name for column in cursor.description or ()]
            for row in cursor:
                for column, value in zip(columns, row, strict=True):
                    yield table, column, value


def _as_text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("latin-1")  # a protobuf or JSON blob keeps its strings readable this way
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def test_database_holds_no_secret_in_clear(flow: Flow, database_url: str) -> None:
    found: list[str] = []
    for table, column, value in _database_values(database_url):
        text = _as_text(value)
        found += [f"{name} in {table}.{column}" for name, secret in flow.secrets.items() if secret in text]
        found += [f"cvc in {table}.{column}" for cvc in flow.cvcs if _cvc_leaks(text, cvc)]
        # Shapes that random digests cannot take by chance (a hex hash may hold a 13-digit run of digits).
        if GENERIC_PATTERNS["gateway token"].search(text):
            found.append(f"gateway token in {table}.{column}")
        if re.search(r"\bcvc\b", text, re.IGNORECASE | re.ASCII):  # text may hold any Unicode (hostile input)
            found.append(f"a 'cvc' field in {table}.{column}")
    assert not found, found


def test_secret_keys_are_stored_only_as_sha256_digests(flow: Flow, database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT secret_key_hash, secret_key_last4 FROM api_keys WHERE id = %s", (flow.key_id,)
        ).fetchone()
    assert row is not None
    secret = flow.secrets["sk_test"]
    assert row == (hashlib.sha256(secret.encode()).hexdigest(), secret[-4:])


def test_webhook_secrets_are_sealed_with_the_endpoint_as_context(flow: Flow, database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT secret_sealed, secret_key_id FROM webhook_endpoints WHERE id = %s", (flow.endpoint_id,)
        ).fetchone()
    assert row is not None
    sealed = bytes(row[0])
    box = SecretBox(Keyring(base64.b64decode(TEST_DATA_ENCRYPTION_KEY)), "webhook-secret")
    assert row[1] == box.current_id
    assert box.open(Sealed(row[1], sealed), flow.endpoint_id) == flow.secrets["webhook secret"]
    assert flow.secrets["webhook secret"].encode() not in sealed


def test_idempotency_fingerprints_are_keyed(flow: Flow, database_url: str) -> None:
    """The fingerprint of a card payment's body must not be a plain hash: with the stored last4, expiry and
    brand, an unkeyed SHA-256 of the body gives the full card number and CVC back after ~10^8 guesses."""
    paid = flow.charge_ids[1]
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT fingerprint FROM idempotency_keys WHERE scope = %s AND key = %s",
            (f"checkout:{paid}", "pay-1"),
        ).fetchone()
    assert row is not None
    assert row[0] != fingerprint(f"/checkout/{paid}/complete", flow.checkout_body)
    assert len(row[0]) == 64
