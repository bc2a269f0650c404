"""The core's Prometheus instruments, in one registry served on its metrics port (DESIGN §1).

The code being measured only calls `observe`/`inc` on these; the domain never imports this module.
A registry of our own (not the global default) keeps the exposition to what operators asked for and lets
tests build several cores in one process.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

logger = logging.getLogger(__name__)

REGISTRY = CollectorRegistry()

# Sub-millisecond to the 8 s ask deadline: where an actor turn, a lease wait and a refund burst all fall.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RPC_SECONDS = Histogram(
    "core_rpc_duration_seconds",
    "gRPC method latency, by method and status code",
    ["method", "code"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
ACTIVE_ACTORS = Gauge("core_active_actors", "Entity actors in memory, by kind", ["kind"], registry=REGISTRY)
LEASE_WAIT_SECONDS = Histogram(
    "core_lease_wait_seconds",
    "Time spent acquiring an entity lease, by outcome (acquired, timed_out)",
    ["outcome"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
LEASE_CONTENDED = Counter(
    "core_lease_contended_total",
    "Lease acquisitions that found the entity held by another owner",
    registry=REGISTRY,
)
LEASE_TAKEN_OVER = Counter(
    "core_lease_taken_over_total",
    "Leases taken over from a core whose heartbeat lapsed (DESIGN §10.9)",
    registry=REGISTRY,
)
IDEMPOTENT_REPLAYS = Counter(
    "core_idempotency_replays_total",
    "Requests answered with the stored result of an earlier one",
    registry=REGISTRY,
)
SHED_RPCS = Counter(
    "core_rpcs_shed_total",
    "Calls refused at once because CORE_MAX_IN_FLIGHT_RPCS were already running (nothing ran)",
    registry=REGISTRY,
)
WEBHOOK_QUEUE_DEPTH = Gauge(
    "core_webhook_queue_depth",
    "Webhook deliveries pending (due now or scheduled for a retry)",
    registry=REGISTRY,
)
WEBHOOK_ATTEMPTS = Counter(
    "core_webhook_delivery_attempts_total",
    "Webhook delivery attempts, by outcome (succeeded, failed)",
    ["outcome"],
    registry=REGISTRY,
)
ATTEMPT_OUTCOMES = ("succeeded", "failed")


def attempts_counted() -> dict[str, int]:
    """WEBHOOK_ATTEMPTS in this process so far, by outcome: what a dispatcher process reports to its core."""
    # This counter's samples only: the registry's get_sample_value collects every metric of the process
    # to find one sample, four times a second in a dispatcher process.
    counted = dict.fromkeys(ATTEMPT_OUTCOMES, 0)
    for metric in WEBHOOK_ATTEMPTS.collect():
        for sample in metric.samples:
            outcome = sample.labels.get("outcome")
            if sample.name == "core_webhook_delivery_attempts_total" and outcome in counted:
                counted[outcome] = int(sample.value)
    return counted


def attempt_report(counts: dict[str, int]) -> bytes:
    """One report line of attempts counted since the last one (a dispatcher process to its core)."""
    return json.dumps(counts, separators=(",", ":")).encode() + b"\n"


def count_reported_attempts(line: bytes) -> None:
    """Adds a dispatcher process's report line to this core's WEBHOOK_ATTEMPTS, so the outcomes of
    deliveries made in that process are served on the core's metrics port like its own."""
    try:
        counts = json.loads(line)
        for outcome in ATTEMPT_OUTCOMES:
            if int(counts.get(outcome, 0)) > 0:
                WEBHOOK_ATTEMPTS.labels(outcome).inc(int(counts[outcome]))
    except (ValueError, TypeError, AttributeError) as exc:
        logger.warning("unreadable report from the webhook dispatcher process: %s", type(exc).__name__)


def track_active_actors(kind: str, count: Callable[[], int]) -> None:
    """Read on every scrape, so the gauge is never stale and costs nothing between scrapes."""
    ACTIVE_ACTORS.labels(kind=kind).set_function(count)


def serve_metrics(addr: str | None) -> Any | None:
    """Start the metrics HTTP endpoint in a daemon thread; a taken port is logged, never fatal to the core."""
    if addr is None:
        return None
    host, _, port = addr.rpartition(":")
    try:
        server, _thread = start_http_server(int(port), addr=host or "127.0.0.1", registry=REGISTRY)
    except OSError as exc:
        logger.warning("metrics endpoint %s not started: %s", addr, exc)
        return None
    logger.info("metrics on http://%s/metrics", addr)
    return server


async def sample_queue_depth(pending_count: Callable[[], Awaitable[int]], interval: float = 5.0) -> None:
    """Refresh the webhook queue gauge from PostgreSQL; scrapes run on a thread that cannot await the pool."""
    while True:
        try:
            WEBHOOK_QUEUE_DEPTH.set(await pending_count())
        except Exception as exc:  # noqa: BLE001 - a failed sample keeps the last value; health reports outages
            logger.debug("queue depth sample failed: %s", type(exc).__name__)
        # await: sampling is cheap but not free; five seconds is finer than any scrape interval.
        await asyncio.sleep(interval)
