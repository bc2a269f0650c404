"""A year of billing for a mixed set of subscriptions reconciles to the cent (issue 21, done when).

One merchant, through the gateway: a downgrade mid-period (its credit used up over later invoices), an
upgrade invoiced at once, an add-on charged at once and later removed, a customer whose card declines
(dunning, then a new card), a refund of an invoice's charge, a dispute, an adjustment — then twelve
months of the sandbox clock. `make reconcile` must find nothing for the merchant: every ledger row
recomputed from the movements, every customer balance the sum of its transactions, every invoice's
credit applied and due equal to what its balance transactions say.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.api_client import API, sign_up
from tests.e2e.subscription_api_helpers import (
    DAY,
    DUNNING_CARD,
    OK_CARD,
    advance_to,
    customer,
    get_sub,
    invoices,
    ok,
    price,
    subscribe,
    tax_rate,
)
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
MONTH = 31 * DAY


class WaitsOutRateLimits(httpx.HTTPTransport):
    """This test makes more than the 25 TEST requests a second of a merchant: a 429 is waited out (its
    Retry-After) and sent again, as a well-behaved client does."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = time.monotonic() + 30
        while True:
            response = super().handle_request(request)
            if response.status_code != 429 or time.monotonic() > deadline:
                return response
            response.read()
            time.sleep(float(response.headers.get("Retry-After", "1")))


def reconcile(core: RunningProcess) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CORE_GRPC_ADDR": core.address}
    env.pop("CORE_AUTH_TOKEN", None)
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "reconcile.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_mixed_year_of_billing_reconciles_to_the_cent(
    gateway_process: RunningProcess, core_process: RunningProcess
) -> None:
    with httpx.Client(
        base_url=gateway_process.base_url, timeout=60.0, transport=WaitsOutRateLimits()
    ) as client:
        run_the_year(client, core_process)


def run_the_year(client: httpx.Client, core_process: RunningProcess) -> None:
    merchant = sign_up(client)
    auth = merchant.auth
    vat = tax_rate(client, merchant, "8", False)
    pro, lite, seat = (
        price(client, merchant, amount, interval="monthly") for amount in (10_000, 2_000, 1_500)
    )

    downgrade = subscribe(client, merchant, customer(client, merchant), pro, tax_rate_id=vat)
    upgrade = subscribe(client, merchant, customer(client, merchant), lite)
    addon = subscribe(client, merchant, customer(client, merchant), lite)
    dunning_customer = customer(client, merchant, card=DUNNING_CARD)
    dunning = subscribe(client, merchant, dunning_customer, lite)
    refunded = subscribe(client, merchant, customer(client, merchant), pro, tax_rate_id=vat)
    disputed = subscribe(client, merchant, customer(client, merchant), pro)
    start = downgrade["current_period_start"]

    advance_to(client, merchant, start + 12 * DAY)
    sub_url = f"{API}/subscriptions"
    ok(client.patch(f"{sub_url}/{downgrade['id']}", json={"price_id": lite}, headers=auth))
    ok(
        client.patch(
            f"{sub_url}/{upgrade['id']}",
            json={"price_id": pro, "proration_behavior": "always_invoice"},
            headers=auth,
        )
    )
    item = ok(
        client.post(
            f"{sub_url}/{addon['id']}/items",
            json={"priceId": seat, "quantity": 3, "prorationBehavior": "charge_immediately"},
            headers=auth,
        ),
        201,
    )
    first_paid = invoices(client, merchant, subscription_id=refunded["id"])[0]
    ok(
        client.post(f"{API}/charges/{first_paid['charge']}/refunds", json={"amount": 4_000}, headers=auth),
        201,
    )
    disputed_paid = invoices(client, merchant, subscription_id=disputed["id"])[0]
    ok(client.post(f"{API}/test_helpers/charges/{disputed_paid['charge']}/dispute", headers=auth), 201)
    goodwill = {"amount_cents": 1_234, "currency": "usd", "description": "Goodwill"}
    refunded_customer = refunded["customer_id"]
    ok(
        client.post(f"{API}/customers/{refunded_customer}/balance-transactions", json=goodwill, headers=auth),
        201,
    )

    # Day 12: two retries of the dunning card failed; a new card pays what is owed.
    assert get_sub(client, merchant, dunning["id"])["status"] == "PAST_DUE"
    card = {"type": "card", "card": {"number": OK_CARD, "exp_month": 12, "exp_year": 2099, "cvc": "123"}}
    ok(
        client.post(
            f"{API}/customers/{dunning_customer}/payment-methods",
            json={**card, "set_default": True},
            headers=auth,
        ),
        201,
    )
    assert get_sub(client, merchant, dunning["id"])["status"] == "ACTIVE"

    advance_to(client, merchant, start + 2 * MONTH)
    ok(client.delete(f"{sub_url}/{addon['id']}/items/{item['id']}?immediate=true", headers=auth))
    for month in range(3, 13):
        advance_to(client, merchant, start + month * MONTH)

    made = invoices(client, merchant)
    assert len(made) >= 6 * 12
    # The downgrade's credit was used, to the cent, over its following invoices.
    downgrade_invoices = invoices(client, merchant, subscription_id=downgrade["id"])
    assert any(i["credit_applied_cents"] > 0 for i in downgrade_invoices)
    run = reconcile(core_process)
    assert run.returncode in (0, 1), run.stderr
    assert f"{merchant.id} test usd:" in run.stdout
    findings = [
        line for line in run.stdout.splitlines() if merchant.id in line and not line.startswith(merchant.id)
    ]
    assert findings == [], run.stdout
