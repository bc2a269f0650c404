"""Two cores running the billing run at once over 500 due subscriptions: each period is invoiced and
charged exactly once, and every paid invoice leaves one merchant credit (issue 15, safety).

The cores sweep every second on the real clock, both at once, each claiming its own batches (SKIP
LOCKED). On top of that a clock advance (whose run for its merchant ignores the periodic run's claims)
is sent through each gateway while the periodic run is going: the two cores then work on the same
subscriptions at the same moment, and only the subscription's actor and the unique indexes keep the
billing single.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, sign_up
from tests.support.billing_load import MAKE_DUE, PRICE_CENTS, create_subscriptions, due_left
from tests.support.private_services import wait_until
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles
from tests.support.services import create_test_database, drop_test_database
from tests.support.subscription_shop import ok
from tests.support.table_audit import count, half_written

pytestmark = pytest.mark.e2e

SUBSCRIPTIONS = 500  # five of the run's batches for two cores to share, and both advances on top


@dataclass
class Cluster:
    dsn: str
    gateways: list[RunningProcess]


@pytest.fixture(scope="module")
def cluster(base_services: dict[str, str], stack_env: dict[str, str]) -> Iterator[Cluster]:
    # A database of its own: the run bills every due subscription it finds, and the audit reads all rows.
    dsn = create_test_database(base_services["DATABASE_URL"])
    env = {
        **stack_env,
        "DATABASE_URL": dsn,
        "REDIS_NAMESPACE": f"{stack_env['REDIS_NAMESPACE']}-billing-{uuid.uuid4().hex[:6]}",
        "RATE_LIMIT_TEST": "100000",
        "RATE_LIMIT_LIVE": "100000",
        "BILLING_INTERVAL_SECONDS": "1",
        "CORE_TIMEOUT_SECONDS": "30",  # an advance answers after its own billing run
    }
    started: list[RunningProcess] = []
    try:
        cores = [start_core(env), start_core(env)]
        started += cores
        # Each gateway talks to a different core, so the advances run on both.
        started += [start_gateway(env, [cores[0].address]), start_gateway(env, [cores[1].address])]
        yield Cluster(dsn, started[2:])
    finally:
        for process in reversed(started):
            process.stop()
        drop_test_database(base_services["DATABASE_URL"], dsn)


async def advance_through_both(gateways: list[RunningProcess], merchant: Merchant) -> list[httpx.Response]:
    """One advance per gateway, the second 50 ms after the first and a minute further (so it moves the
    clock too): each core runs the merchant's due billing in its request, at the same time."""
    async with (
        httpx.AsyncClient(base_url=gateways[0].base_url, timeout=60.0) as a,
        httpx.AsyncClient(base_url=gateways[1].base_url, timeout=60.0) as b,
    ):
        now = ok(await a.get(f"{API}/test_helpers/clock", headers=merchant.auth))["now"]

        async def advance(client: httpx.AsyncClient, k: int) -> httpx.Response:
            await asyncio.sleep(0.05 * k)
            body = {"to": now + 60 * (k + 1)}
            answer = await client.post(f"{API}/test_helpers/clock/advance", json=body, headers=merchant.auth)
            if answer.status_code == 400 and answer.json()["error"]["param"] == "to":
                # The other advance, 50 ms behind, overtook this one on a busy machine: the clock only
                # moves forward, so this one goes a minute past where the other left it.
                current = ok(await client.get(f"{API}/test_helpers/clock", headers=merchant.auth))["now"]
                body = {"to": current + 60}
                answer = await client.post(
                    f"{API}/test_helpers/clock/advance", json=body, headers=merchant.auth
                )
            return answer

        return list(await asyncio.gather(advance(a, 0), advance(b, 1)))


def test_two_cores_bill_five_hundred_due_subscriptions_each_exactly_once(cluster: Cluster) -> None:
    started = time.monotonic()
    with httpx.Client(base_url=cluster.gateways[0].base_url, timeout=30.0) as client:
        merchant = sign_up(client)
    subscription_ids = asyncio.run(create_subscriptions(cluster.gateways, merchant, SUBSCRIPTIONS))
    created = time.monotonic()

    with psycopg.connect(cluster.dsn) as conn:
        shifted = conn.execute(MAKE_DUE, (merchant.id,)).rowcount
    assert shifted == SUBSCRIPTIONS
    # Both cores at once on the same subscriptions, while the periodic run is at work.
    wait_until(
        lambda: (
            count(cluster.dsn, "SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle'")
            > 0
        ),
        timeout=15,
        interval=0.02,
        what="the periodic run to begin",
    )
    for answer in asyncio.run(advance_through_both(cluster.gateways, merchant)):
        assert answer.status_code == 200, answer.text
    wait_until(
        lambda: (
            due_left(cluster.dsn, merchant.id) == 0
            and count(cluster.dsn, "SELECT count(*) FROM invoices WHERE status <> 'PAID'") == 0
        ),
        timeout=60,
        interval=0.2,
        what="every subscription to be billed",
    )
    billed = time.monotonic()
    print(
        f"{SUBSCRIPTIONS} subscriptions created in {created - started:.1f}s, "
        f"billed in {billed - created:.1f}s after they fell due"
    )

    with psycopg.connect(cluster.dsn) as conn:
        per_subscription: dict[str, int] = dict(
            conn.execute(
                """SELECT s.id, count(i.id) FROM subscriptions s
                   LEFT JOIN invoices i ON i.subscription_id = s.id
                   WHERE s.merchant_id = %s GROUP BY s.id""",
                (merchant.id,),
            ).fetchall()
        )
        reasons = conn.execute(
            "SELECT billing_reason, status, attempt_count, count(*) FROM invoices GROUP BY 1, 2, 3"
        ).fetchall()
        periods = conn.execute(
            "SELECT count(*), count(DISTINCT (subscription_id, period_start)) FROM invoices"
        ).fetchone()
        charges = conn.execute(
            """SELECT count(*), count(DISTINCT (invoice_id, invoice_attempt)),
                      count(*) FILTER (WHERE status = 'captured' AND amount_captured = %s)
               FROM charges WHERE invoice_id IS NOT NULL""",
            (PRICE_CENTS,),
        ).fetchone()
        unmatched = conn.execute(
            """SELECT i.id FROM invoices i
               WHERE (SELECT count(*) FROM charges c WHERE c.invoice_id = i.id) <> i.attempt_count
                  OR NOT EXISTS (
                      SELECT 1 FROM charges c
                      WHERE c.id = i.charge_id AND c.invoice_id = i.id AND c.invoice_attempt = 1)"""
        ).fetchall()
        credits = conn.execute(
            """SELECT count(*), count(DISTINCT ic.invoice_id), coalesce(sum(ic.total_cents), 0)
               FROM invoice_credits ic JOIN invoices i ON i.id = ic.invoice_id AND i.status = 'PAID'"""
        ).fetchone()
        statuses = conn.execute("SELECT status, count(*) FROM subscriptions GROUP BY status").fetchall()

    assert set(per_subscription) == set(subscription_ids)
    assert set(per_subscription.values()) == {2}, {k: v for k, v in per_subscription.items() if v != 2}
    # The first invoice and one cycle, each paid at its first attempt.
    assert sorted(reasons) == [
        ("subscription_create", "PAID", 1, SUBSCRIPTIONS),
        ("subscription_cycle", "PAID", 1, SUBSCRIPTIONS),
    ]
    assert periods == (2 * SUBSCRIPTIONS, 2 * SUBSCRIPTIONS)  # no (subscription, period) twice
    assert charges == (2 * SUBSCRIPTIONS, 2 * SUBSCRIPTIONS, 2 * SUBSCRIPTIONS)  # one per attempt
    assert unmatched == []
    assert credits == (2 * SUBSCRIPTIONS, 2 * SUBSCRIPTIONS, 2 * SUBSCRIPTIONS * PRICE_CENTS)
    assert statuses == [("ACTIVE", SUBSCRIPTIONS)]
    assert half_written(cluster.dsn) == {}
    assert_reconciles(cluster.dsn)  # every paid invoice has its subscription row, once
