"""Many due subscriptions for the billing run's e2e tests: `create_subscriptions` over two gateways,
`MAKE_DUE` to move their periods into the past, `due_left` to count what is still due. Shared by the
exactly-once test and the core-crash test."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from tests.e2e.api_client import API, Merchant
from tests.support.processes import RunningProcess
from tests.support.subscription_shop import ok
from tests.support.table_audit import count

CUSTOMERS = 20
PRICE_CENTS = 2_500
CARD = {
    "type": "card",
    "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"},
}
# Shifts every subscription's period (and the anchor its next period is computed from) back so that it
# ended an hour ago. Advancing the merchant's sandbox clock instead would bill them in the advance's own
# request, not in the periodic run under test. The new period [end, end + 1 week) cannot collide with the
# first invoice's period, which started at creation (a few seconds ago). The stored next step moves with
# the period end (a save writes it; this bypasses saves): the run's first save then writes the exact one.
MAKE_DUE = """
UPDATE subscriptions SET
    billing_anchor = billing_anchor - (current_period_end - (now() - interval '1 hour')),
    current_period_start = current_period_start - (current_period_end - (now() - interval '1 hour')),
    current_period_end = now() - interval '1 hour',
    next_step_at = now() - interval '1 hour'
WHERE merchant_id = %s"""


async def create_subscriptions(gateways: list[RunningProcess], merchant: Merchant, n: int) -> list[str]:
    """`n` weekly subscriptions over CUSTOMERS customers with a card, 32 requests at a time over both
    gateways; each create charges its first invoice."""
    limits = httpx.Limits(max_connections=32)
    async with (
        httpx.AsyncClient(base_url=gateways[0].base_url, timeout=60.0, limits=limits) as a,
        httpx.AsyncClient(base_url=gateways[1].base_url, timeout=60.0, limits=limits) as b,
    ):
        clients = [a, b]
        auth = merchant.auth
        plan = ok(await a.post(f"{API}/plans", json={"name": "Pro"}, headers=auth), 201)
        body = {"amount_cents": PRICE_CENTS, "currency": "usd", "interval": "weekly"}
        price = ok(await a.post(f"{API}/plans/{plan['id']}/prices", json=body, headers=auth), 201)["id"]

        async def customer(k: int) -> str:
            email = {"email": f"c{k}-{uuid.uuid4().hex[:8]}@example.com"}
            made = ok(await clients[k % 2].post(f"{API}/customers", json=email, headers=auth), 201)["id"]
            url = f"{API}/customers/{made}/payment-methods"
            ok(await clients[k % 2].post(url, json=CARD, headers=auth), 201)
            return str(made)

        customers = await asyncio.gather(*(customer(k) for k in range(CUSTOMERS)))
        slots = asyncio.Semaphore(32)

        async def subscribe(k: int) -> str:
            async with slots:
                body = {"customer_id": customers[k % CUSTOMERS], "price_id": price}
                made = ok(await clients[k % 2].post(f"{API}/subscriptions", json=body, headers=auth), 201)
            assert made["status"] == "ACTIVE", made
            return str(made["id"])

        return list(await asyncio.gather(*(subscribe(k) for k in range(n))))


def due_left(dsn: str, merchant_id: str) -> int:
    return count(
        dsn,
        "SELECT count(*) FROM subscriptions WHERE merchant_id = %s AND current_period_end <= now()",
        merchant_id,
    )
