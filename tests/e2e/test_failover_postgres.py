"""PostgreSQL failover under idempotent create load (DESIGN §10.8): a primary with a synchronous standby,
the primary crashed, the standby promoted, and the core finds the new primary by itself through the
multi-host DATABASE_URL (`target_session_attrs=read-write`).

Checked through the API: every acknowledged create is there exactly once, no key made two charges, no
answer other than 201 or a retryable 503, the first success within 10 s of the promotion, and the
core's LISTEN connections back on the new primary (a webhook goes out at once, not at the slow poll).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, Merchant, create_charge, pay, sign_up
from tests.support.create_load import CreateLoad, list_charges
from tests.support.postgres_replication import ReplicatedPostgres, replicated_postgres
from tests.support.private_services import fault_env, private_redis, wait_until
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e

BACK_WITHIN_SECONDS = 10.0
# What a failover manager spends noticing the dead primary before it promotes (Patroni: a loop of
# seconds); the clients meanwhile get 503s.
DETECTION_SECONDS = 2.0
# Slow on purpose: a webhook sent within WEBHOOK_WAKE_SECONDS of its event was woken by NOTIFY.
WEBHOOK_POLL_SECONDS = "60"
WEBHOOK_WAKE_SECONDS = 5.0
OUTAGE_CODES = frozenset({"service_unavailable", "timeout"})


@dataclass
class Stack:
    pg: ReplicatedPostgres
    core: RunningProcess
    gateway: RunningProcess
    merchant: Merchant
    receiver: WebhookReceiver


@pytest.fixture
def stack(stack_env: dict[str, str]) -> Iterator[Stack]:
    with replicated_postgres("failover") as pg, private_redis() as redis, start_receiver() as receiver:
        env = fault_env(stack_env, pg.dsn(), redis.url, WEBHOOK_POLL_SECONDS=WEBHOOK_POLL_SECONDS)
        core = start_core(env)
        gateway = None
        try:
            gateway = start_gateway(env, [core.address])
            with httpx.Client(base_url=gateway.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
                hook = client.post(
                    f"{API}/webhooks",
                    json={"url": receiver.url(), "events": ["charge.completed"]},
                    headers=merchant.auth,
                )
                assert hook.status_code == 201, hook.text
            yield Stack(pg, core, gateway, merchant, receiver)
        finally:
            for process in (gateway, core):
                if process is not None:
                    process.stop()


def listening_backends(dsn: str) -> int:
    """The core's LISTEN sessions on this server (its clock's, and its dispatcher process's two: the
    deliveries' and the clock's)."""
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=2) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND backend_type = "
                "'client backend'"
            ).fetchone()
    except psycopg.OperationalError:
        return 0
    return int(row[0]) if row else 0


def error_lines(log_text: str) -> list[dict[str, object]]:
    lines = []
    for raw in log_text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("level") in ("error", "critical"):
            lines.append(line)
    return lines


def test_primary_crashed_and_standby_promoted_under_create_load(stack: Stack) -> None:
    load = CreateLoad(stack.gateway.base_url, stack.merchant.auth, clients=6).start()
    try:
        load.wait_for(lambda a: a.status == 201, count=60)
        killed = time.monotonic()
        stack.pg.kill_primary()
        time.sleep(DETECTION_SECONDS)
        promoted = time.monotonic()
        stack.pg.promote()
        first = min(
            load.wait_for(lambda a: a.status == 201 and a.started >= promoted, timeout=BACK_WITHIN_SECONDS),
            key=lambda a: a.ended,
        )
        wait_until(
            lambda: listening_backends(stack.pg.standby.dsn("failover")) >= 3,
            BACK_WITHIN_SECONDS,
            what="the three LISTEN sessions of the core and its dispatcher on the promoted standby",
        )
        listen_back = time.monotonic() - promoted
        # More load on the new primary, so the creates after the switch are counted too.
        load.wait_for(lambda a: a.status == 201 and a.started >= promoted + listen_back + 1.0, count=30)
    finally:
        load.stop()
    attempts = load.snapshot()
    statuses = Counter(a.status for a in attempts)
    unavailable = [a for a in attempts if a.status == 503]
    replays = sum(1 for a in attempts if a.replayed)
    last_before = max((a.ended for a in attempts if a.status == 201 and a.ended <= killed), default=killed)
    print(
        f"\ncreates acknowledged {len(load.acknowledged)}, attempts {len(attempts)} {dict(statuses)}, "
        f"replayed {replays}; last success {killed - last_before:.2f}s before the kill; first success "
        f"{first.ended - promoted:.2f}s after the promote; LISTEN back {listen_back:.2f}s after it"
    )

    assert set(statuses) <= {201, 503}, [
        (a.status, a.payload) for a in attempts if a.status not in (201, 503)
    ]
    for attempt in unavailable:
        assert attempt.error is not None and attempt.error["type"] == "api_error", attempt.payload
        assert attempt.error["code"] in OUTAGE_CODES, attempt.payload
    assert not load.abandoned, f"{len(load.abandoned)} keys never acknowledged"
    assert first.ended - promoted < BACK_WITHIN_SECONDS
    assert listen_back < BACK_WITHIN_SECONDS

    # LISTEN works again: a payment made now is delivered long before the dispatcher's slow poll.
    with httpx.Client(base_url=stack.gateway.base_url, timeout=15.0) as client:
        charge = create_charge(client, stack.merchant, description="after-failover")
        paid_at = time.monotonic()
        assert pay(client, charge["id"]).status_code == 200
        stack.receiver.wait_for_sync(1, timeout=WEBHOOK_WAKE_SECONDS)
        print(f"webhook delivered {time.monotonic() - paid_at:.2f}s after the payment")

        # Through the API: each acknowledged create once, each key one charge, nothing else made.
        charges = [
            c for c in list_charges(client, stack.merchant.auth) if c["description"] != "after-failover"
        ]
    by_key = Counter(c["description"] for c in charges)
    doubled = {key: n for key, n in by_key.items() if n > 1}
    assert not doubled, f"keys that made more than one charge: {doubled}"
    ids = {c["id"] for c in charges}
    missing = {key: cid for key, cid in load.acknowledged.items() if cid not in ids}
    assert not missing, f"{len(missing)} acknowledged creates are gone: {list(missing.items())[:5]}"
    assert set(by_key) == set(load.acknowledged), "charges exist for keys never acknowledged"

    # The switch's 503s are warnings with their reason in the gateway's log, never errors.
    assert error_lines(stack.gateway.log_text()) == []
