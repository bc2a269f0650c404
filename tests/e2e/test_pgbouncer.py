"""The core behind PgBouncer in transaction pooling mode (DATABASE_POOLER=pgbouncer, DESIGN §10.8).

The e2e main paths once through a real PgBouncer: sign-up, a charge created, paid through checkout,
captured and refunded, a webhook delivered (woken by LISTEN on DATABASE_LISTEN_URL, direct to
PostgreSQL), a subscription created and billed again by a sandbox clock advance. Repeated statements
pass psycopg's prepare threshold, so a named prepared statement would have failed on the next server
connection; the pooler's own statistics show the traffic went through it. And a pooler whose server
connections lack the core's time-outs is refused at start.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest

from core_server.db.pool import pooled_connect_query
from tests.e2e.api_client import API, Merchant, create_charge, pay, sign_up
from tests.e2e.subscription_api_helpers import (
    WEEK,
    advance_to,
    customer,
    invoices,
    ok,
    price,
    subscribe,
)
from tests.support.pgbouncer import PrivatePgBouncer, pgbouncer_binary, private_pgbouncer
from tests.support.private_services import (
    FAST_FAILURE_ENV,
    PrivatePostgres,
    fault_env,
    private_postgres,
    private_redis,
)
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        pgbouncer_binary() is None, reason="pgbouncer missing: run scripts/ensure_pgbouncer.sh"
    ),
]

DBNAME = "pooled"
WEBHOOK_POLL_SECONDS = "60"
WEBHOOK_WAKE_SECONDS = 5.0
# More executions of one statement than psycopg's prepare threshold (5).
REPEATS = 12
CLIENTS = 8


@dataclass
class Stack:
    bouncer: PrivatePgBouncer
    core: RunningProcess
    gateway: RunningProcess
    receiver: WebhookReceiver


def _timeouts() -> str:
    return pooled_connect_query(
        float(FAST_FAILURE_ENV["DB_STATEMENT_TIMEOUT_SECONDS"]),
        float(FAST_FAILURE_ENV["DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS"]),
    )


@pytest.fixture(scope="module")
def postgres() -> Iterator[tuple[PrivatePostgres, str, str]]:
    with private_postgres() as server, private_redis() as redis:
        direct = server.create_database(DBNAME)
        yield server, direct, redis.url


@pytest.fixture
def stack(stack_env: dict[str, str], postgres: tuple[PrivatePostgres, str, str]) -> Iterator[Stack]:
    server, direct, redis_url = postgres
    with private_pgbouncer(server, _timeouts(), pool_size=4) as bouncer, start_receiver() as receiver:
        env = fault_env(
            stack_env,
            bouncer.dsn(DBNAME),
            redis_url,
            DATABASE_POOLER="pgbouncer",
            DATABASE_LISTEN_URL=direct,
            WEBHOOK_POLL_SECONDS=WEBHOOK_POLL_SECONDS,
        )
        core = start_core(env)
        gateway = None
        try:
            gateway = start_gateway(env, [core.address])
            yield Stack(bouncer, core, gateway, receiver)
        finally:
            for process in (gateway, core):
                if process is not None:
                    process.stop()


def _transactions(bouncer: PrivatePgBouncer) -> int:
    return sum(
        int(row["total_xact_count"]) for row in bouncer.show("SHOW STATS") if row["database"] == DBNAME
    )


def test_main_paths_through_pgbouncer_in_transaction_mode(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        merchant = sign_up(client)
        hook = client.post(
            f"{API}/webhooks",
            json={"url": stack.receiver.url(), "events": ["charge.refunded"]},
            headers=merchant.auth,
        )
        assert hook.status_code == 201, hook.text
        before = _transactions(stack.bouncer)

        _concurrent_creates_and_reads(stack.gateway.base_url, merchant)
        charge = create_charge(client, merchant, amount=5000)
        paid = pay(client, charge["id"])
        assert paid.status_code == 200 and paid.json()["success"], paid.text
        captured = client.post(f"{API}/charges/{charge['id']}/capture", json={}, headers=merchant.auth)
        assert captured.status_code == 200 and captured.json()["status"] == "captured", captured.text
        refunded_at = time.monotonic()
        refund = client.post(
            f"{API}/charges/{charge['id']}/refunds",
            json={"amount": 1200, "reason": "other"},
            headers=merchant.auth,
        )
        assert refund.status_code == 201, refund.text
        # Only a NOTIFY wakes the dispatcher this fast: its slow poll is a minute.
        delivered = stack.receiver.wait_for_sync(1, timeout=WEBHOOK_WAKE_SECONDS)
        assert delivered[0].event["type"] == "charge.refunded"
        print(f"\nwebhook delivered {time.monotonic() - refunded_at:.2f}s after the refund")

        _subscription_billed_by_a_clock_advance(client, merchant)
        after = _transactions(stack.bouncer)
    print(f"{after - before} transactions through PgBouncer")
    assert after - before > 4 * REPEATS
    assert "prepared statement" not in stack.core.log_text()


def _concurrent_creates_and_reads(base_url: str, merchant: Merchant) -> None:
    """Many core connections over few server connections, each statement run past the prepare threshold:
    a named prepared statement of one client connection would meet another's on a shared server
    connection ("already exists") or miss its own on a different one ("does not exist")."""

    def work(_: int) -> list[int]:
        statuses = []
        with httpx.Client(base_url=base_url, timeout=15.0) as client:
            for _ in range(REPEATS):
                made = client.post(
                    f"{API}/charges",
                    json={"amount": 700, "currency": "usd", "return_url": "https://shop.example/ok"},
                    headers=merchant.auth,
                )
                statuses.append(made.status_code)
                if made.status_code == 201:
                    read = client.get(f"{API}/charges/{made.json()['id']}", headers=merchant.auth)
                    statuses.append(read.status_code)
        return statuses

    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = Counter(status for answers in pool.map(work, range(CLIENTS)) for status in answers)
    assert statuses == {201: CLIENTS * REPEATS, 200: CLIENTS * REPEATS}, statuses


def _subscription_billed_by_a_clock_advance(client: httpx.Client, merchant: Merchant) -> None:
    sub = subscribe(client, merchant, customer(client, merchant), price(client, merchant, 2500))
    assert sub["status"] == "ACTIVE"
    assert [i["status"] for i in invoices(client, merchant)] == ["PAID"]
    advance_to(client, merchant, sub["current_period_start"] + WEEK + 60)
    deadline = time.monotonic() + 10.0
    while len(paid := [i for i in invoices(client, merchant) if i["status"] == "PAID"]) < 2:
        assert time.monotonic() < deadline, invoices(client, merchant)
        time.sleep(0.1)
    renewed = ok(client.get(f"{API}/subscriptions/{sub['id']}", headers=merchant.auth))
    assert renewed["current_period_start"] == sub["current_period_start"] + WEEK
    assert len(paid) == 2


def test_a_pooler_without_the_core_time_outs_is_refused_at_start(
    stack_env: dict[str, str], postgres: tuple[PrivatePostgres, str, str]
) -> None:
    server, direct, redis_url = postgres
    with private_pgbouncer(server, None, pool_size=2) as bouncer:
        env = fault_env(
            stack_env, bouncer.dsn(DBNAME), redis_url, DATABASE_POOLER="pgbouncer", DATABASE_LISTEN_URL=direct
        )
        with pytest.raises(RuntimeError, match="exited with code") as refused:
            start_core(env)
    assert "connect_query" in str(refused.value)
    assert "statement_timeout" in str(refused.value)
