"""Refunds and disputes of a paid invoice's charge hand its tax back (DESIGN §10.2, issue 21), through the
gateway: a $100 price with an 8 % exclusive rate charges 10,800 and books 9,657 (fee 343, tax 800); the
merchant never pays back tax it did not receive.

Before: a full refund wrote −10,800 with tax 0 and left the merchant at −1,143."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import API, Merchant, sign_up
from tests.e2e.subscription_api_helpers import customer, invoice, ok, price, subscribe, tax_rate
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e
HELPERS = f"{API}/test_helpers"
ROOT = Path(__file__).resolve().parents[2]


def paid_invoice(client: httpx.Client) -> tuple[Merchant, dict[str, Any]]:
    """A fresh merchant whose customer subscribed to $100 + 8 %: the first invoice, paid."""
    merchant = sign_up(client)
    rate = tax_rate(client, merchant, "8", False)
    sub = subscribe(
        client, merchant, customer(client, merchant), price(client, merchant, 10_000), tax_rate_id=rate
    )
    paid = invoice(client, merchant, sub["latest_invoice"])
    assert (paid["status"], paid["total_cents"], paid["tax_cents"]) == ("PAID", 10_800, 800)
    assert paid["charge"]
    return merchant, paid


def refund(client: httpx.Client, merchant: Merchant, charge_id: str, amount: int | None = None) -> str:
    body = {} if amount is None else {"amount": amount}
    made = ok(client.post(f"{API}/charges/{charge_id}/refunds", json=body, headers=merchant.auth), 201)
    return str(made["id"])


def rows(client: httpx.Client, merchant: Merchant) -> list[tuple[str, str, int, int, int, int]]:
    """(type, source, amount, fee, tax, net) of every balance transaction, oldest first."""
    listed = ok(client.get(f"{API}/balance-transactions", params={"limit": 100}, headers=merchant.auth))
    assert not listed["has_more"]
    return [
        (r["type"], r["source"], r["amount"], r["fee"], r["tax"], r["net"]) for r in reversed(listed["data"])
    ]


def balance(client: httpx.Client, merchant: Merchant) -> int:
    """The merchant's usd balance, available and pending together (GET /balance)."""
    body = ok(client.get(f"{API}/balance", headers=merchant.auth))
    return sum(x["amount"] for x in body["available"] + body["pending"] if x["currency"] == "usd")


def assert_reconciles(core: RunningProcess, merchant: Merchant) -> None:
    """`make reconcile` against the core: this merchant's rows are each recomputed, and none is named."""
    env = {**os.environ, "CORE_GRPC_ADDR": core.address}
    env.pop("CORE_AUTH_TOKEN", None)
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "reconcile.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr  # 1 only for another test's planted data, checked below
    assert f"{merchant.id} test usd:" in run.stdout
    assert not [
        line for line in run.stdout.splitlines() if line.startswith("MISMATCH") and merchant.id in line
    ]


def test_a_full_refund_costs_the_merchant_the_fee_and_no_tax(
    client: httpx.Client, core_process: RunningProcess
) -> None:
    merchant, paid = paid_invoice(client)
    refund_id = refund(client, merchant, paid["charge"])
    assert rows(client, merchant) == [
        ("subscription", paid["id"], 10_800, 343, 800, 9_657),
        ("refund", refund_id, -10_800, 0, -800, -10_000),
    ]
    assert sum(r[5] for r in rows(client, merchant)) == balance(client, merchant) == -343
    assert_reconciles(core_process, merchant)


def test_partial_refunds_return_the_tax_of_what_they_return(
    client: httpx.Client, core_process: RunningProcess
) -> None:
    merchant, paid = paid_invoice(client)
    first = refund(client, merchant, paid["charge"], 1_000)  # 800 × 1,000 / 10,800 = 74.07… → 74
    assert balance(client, merchant) == 9_657 - 1_000 + 74
    rest = refund(client, merchant, paid["charge"])  # the other 726: 800 in all, never 801
    assert rows(client, merchant)[1:] == [
        ("refund", first, -1_000, 0, -74, -926),
        ("refund", rest, -9_800, 0, -726, -9_074),
    ]
    assert balance(client, merchant) == -343
    assert_reconciles(core_process, merchant)


def test_a_dispute_after_a_partial_refund_returns_the_rest_of_the_tax_and_keeps_the_fee(
    client: httpx.Client, core_process: RunningProcess
) -> None:
    merchant, paid = paid_invoice(client)
    first = refund(client, merchant, paid["charge"], 1_000)
    opened = client.post(f"{HELPERS}/charges/{paid['charge']}/dispute", headers=merchant.auth)
    dispute = ok(opened, 201)
    assert (dispute["amount"], dispute["fee"]) == (9_800, 1_500)
    assert rows(client, merchant)[1:] == [
        ("refund", first, -1_000, 0, -74, -926),
        ("dispute", dispute["id"], -9_800, 1_500, -726, -10_574),
    ]
    # Lost, this is where it stays: out the fee and the dispute fee, and not a cent of tax.
    assert balance(client, merchant) == -343 - 1_500

    won = client.post(
        f"{HELPERS}/disputes/{dispute['id']}/close", json={"outcome": "won"}, headers=merchant.auth
    )
    assert ok(won)["status"] == "won"
    assert rows(client, merchant)[-1] == ("dispute_won", dispute["id"], 9_800, -1_500, 726, 10_574)
    assert balance(client, merchant) == 9_657 - 926
    assert_reconciles(core_process, merchant)
