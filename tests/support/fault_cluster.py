"""What the core-crash fault tests share: two cores on private PostgreSQL and Redis, each behind its own
gateway (one core to kill, one that survives), a request caught in flight, and a retry loop with a bound.

The doomed core keeps its actors (and their leases) for 30 s after each turn, so at the kill it still holds
what only a lease's TTL, or the liveness of its heartbeat, can free.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

import httpx
import psycopg

from tests.support.private_services import PrivateRedis, fault_env, private_postgres, private_redis
from tests.support.processes import RunningProcess, start_core, start_gateway

# What a retry may hear while the dead core's claim or lease is still being given up: never a success of
# another request, never a 500.
NOT_YET = frozenset({(409, "idempotency_key_in_use"), (503, "service_busy"), (503, "service_unavailable")})


M = TypeVar("M")  # the tests' merchant (tests/e2e/api_client.py), signed up by the caller's function


@dataclass
class Cluster(Generic[M]):
    dsn: str
    redis: PrivateRedis
    namespace: str
    doomed: RunningProcess  # the core that is killed
    survivor: RunningProcess
    gateway_doomed: RunningProcess
    gateway_survivor: RunningProcess
    merchant: M


@contextmanager
def two_cores(
    stack_env: dict[str, str], database: str, sign_up: Callable[[httpx.Client], M], **overrides: str
) -> Iterator[Cluster[M]]:
    """The cluster on a fresh database named `database`, the core settings `overrides` on both cores, and
    a merchant made by `sign_up` through the surviving core's gateway."""
    with private_postgres() as postgres, private_redis() as redis:
        dsn = postgres.create_database(database)
        env = fault_env(stack_env, dsn, redis.url, **overrides)
        started: list[RunningProcess] = []
        try:
            doomed = start_core({**env, "ACTOR_IDLE_SECONDS": "30"})
            started.append(doomed)
            survivor = start_core(env)
            started.append(survivor)
            gateway_doomed = start_gateway(env, [doomed.address])
            started.append(gateway_doomed)
            gateway_survivor = start_gateway(env, [survivor.address])
            started.append(gateway_survivor)
            with httpx.Client(base_url=gateway_survivor.base_url, timeout=15.0) as client:
                merchant = sign_up(client)
            yield Cluster(
                dsn,
                redis,
                env["REDIS_NAMESPACE"],
                doomed,
                survivor,
                gateway_doomed,
                gateway_survivor,
                merchant,
            )
        finally:
            for process in reversed(started):
                process.stop()


def blocked_charge_update(conn: psycopg.Connection[tuple[object, ...]]) -> int | None:
    """The backend of a charge's UPDATE while it waits for a row lock the test holds (the request caught
    in flight inside PostgreSQL, its Idempotency-Key claimed)."""
    row = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE charges%'"
    ).fetchone()
    return int(str(row[0])) if row else None


def retry_until_answered(
    client: httpx.Client,
    path: str,
    body: Mapping[str, object],
    headers: Mapping[str, str],
    success: int,
    killed_at: float,
    within: float,
) -> tuple[httpx.Response, list[int]]:
    """Retries the request until it succeeds with `success`, failing once `within` seconds have passed
    since `killed_at` (time.monotonic); every answer before is one of NOT_YET."""
    answers: list[int] = []
    while True:
        elapsed = time.monotonic() - killed_at
        assert elapsed < within, f"no definitive answer {elapsed:.1f}s after the kill: {answers}"
        response = client.post(path, json=dict(body), headers=dict(headers))
        answers.append(response.status_code)
        if response.status_code == success:
            return response, answers
        assert (response.status_code, response.json()["error"]["code"]) in NOT_YET, response.text
        time.sleep(0.1)
