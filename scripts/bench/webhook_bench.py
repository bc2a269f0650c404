"""Webhook delivery under a steady event rate, and the ceiling of posting signed bodies to one receiver.

    python scripts/bench/webhook_bench.py                       # 200 creates/s for 60 s, 2 endpoints
    python scripts/bench/webhook_bench.py --seconds 15 --rate 100

A receiver process on loopback (bench_receiver.py) answers 200 to every POST and notes the endpoint
(its path), the event id, whether the signature verifies, and `time.time_ns()` once the body is in.
Charges are created through the gateway at a constant rate (one `charge.created` each, fanned out to
every endpoint).
Latency = receipt less the event's `created_at` in PostgreSQL (stamped by the core as it writes the
event, so the create's commit counts; the payload's `created` has seconds only). After the load the
queue gets a bounded time to drain; then anything not received is lost and an (endpoint, event)
received twice is a duplicate. The ceiling: another process posts signed bodies with the core's own
sender (HttpWebhookSender, connections kept alive as the core keeps them) to the same receiver at the
core's default concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

from bench_receiver import Receiver  # noqa: E402 (scripts/bench on the path first)

TARGETS = {"p50_ms": 50.0, "p99_ms": 250.0}
CEILING_SECONDS = 10.0
CEILING_CONCURRENCY = 32  # WEBHOOK_CONCURRENCY's default: the slots one core's dispatcher fills
DRAIN_SECONDS = 60.0
BUCKETS = (10, 25, 50, 100, 250, 500, 1000)
MARK = {True: "✅", False: "❌"}
LOAD_CONNECTIONS = 64
API = "/api/v1/connect"
CHARGE = {"amount": 2500, "currency": "usd", "description": "webhook bench"}
CHARGE.update(return_url="https://shop.example/thanks", cancel_url="https://shop.example/cart")


async def _ceiling(url: str, seconds: float, concurrency: int) -> dict[str, Any]:
    from core_server.kernel.domain.environment import Environment
    from core_server.webhooks.domain.events import event_body
    from core_server.webhooks.domain.webhook_signature import HEADER, signature_header
    from core_server.webhooks.domain.webhook_url import parse_webhook_url
    from core_server.webhooks.senders.webhook_sender import HttpWebhookSender

    secret = os.environ["BENCH_CEILING_SECRET"]
    target = parse_webhook_url(url, Environment.TEST, allow_private=True)
    sender = HttpWebhookSender(max_connections=concurrency)
    latencies: list[float] = []
    failed = 0
    counter = iter(range(10**9))
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        nonlocal failed
        while time.monotonic() < deadline:
            n = next(counter)
            payload = {"id": f"evt_ceiling_{n}", "object": "event", "type": "charge.created", "data": CHARGE}
            body = event_body(payload)
            headers = {
                "Content-Type": "application/json; charset=utf-8",
                HEADER: signature_header(body, secret, int(time.time())),
            }
            started = time.perf_counter()
            result = await sender.send(target, target.host, body, headers, 10.0)
            if result.status_code == 200:
                latencies.append((time.perf_counter() - started) * 1000)
            else:
                failed += 1

    began = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.monotonic() - began
    await sender.close()
    latencies.sort()
    return {
        "seconds": round(elapsed, 2),
        "concurrency": concurrency,
        "delivered": len(latencies),
        "failed": failed,
        "deliveries_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": _pct(latencies, 50),
        "p99_ms": _pct(latencies, 99),
    }


def measure_ceiling(receiver: Receiver, secret: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--ceiling", f"{receiver.base_url}/ceiling"],
        env={**os.environ, "BENCH_CEILING_SECRET": secret, "PYTHONPATH": f"{ROOT}:{ROOT / 'protos'}"},
        capture_output=True,
        text=True,
        timeout=CEILING_SECONDS + 60,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _pct(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * q // 100))
    return round(sorted_values[int(rank) - 1], 1)


async def _load(base_url: str, secret_key: str, rate: int, seconds: int) -> dict[str, Any]:
    """`rate` creates per second for `seconds`, each started on its slot whatever the previous ones do."""
    limits = httpx.Limits(max_connections=LOAD_CONNECTIONS, max_keepalive_connections=LOAD_CONNECTIONS)
    auth = {"Authorization": f"Bearer {secret_key}"}
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    late = 0

    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits) as http:
        # Excess creates wait here: queued in httpx's pool they slowed the generator itself.
        slots = asyncio.Semaphore(LOAD_CONNECTIONS)

        async def one() -> None:
            started = time.perf_counter()
            try:
                async with slots:
                    answer = await http.post(f"{API}/charges", json=CHARGE, headers=auth)
            except httpx.HTTPError as exc:
                failures[type(exc).__name__] += 1
                return
            if answer.is_success:
                latencies.append((time.perf_counter() - started) * 1000)
            else:
                failures[str(answer.status_code)] += 1

        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        began = loop.time()
        for i in range(rate * seconds):
            delay = began + i / rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -0.05:
                late += 1  # the pacer itself fell behind (a busy machine): counted, not hidden
            task = asyncio.create_task(one())
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks)
        took = loop.time() - began
    latencies.sort()
    return {
        "creates": len(latencies),
        "failed": dict(failures),
        "late_starts": late,
        "creates_per_second": round(len(latencies) / max(took, 1e-9), 1),
        "create_p50_ms": _pct(latencies, 50),
        "create_p99_ms": _pct(latencies, 99),
    }


def register_endpoints(base_url: str, secret_key: str, receiver_url: str, count: int) -> dict[str, str]:
    """`count` endpoints for charge.created on the receiver (paths /hook/0, /hook/1, …); {path: secret}."""
    out: dict[str, str] = {}
    with httpx.Client(base_url=base_url, timeout=30.0) as http:
        for n in range(count):
            path = f"/hook/{n}"
            created = http.post(
                f"{API}/webhooks",
                json={"url": receiver_url + path, "events": ["charge.created"]},
                headers={"Authorization": f"Bearer {secret_key}"},
            )
            if not created.is_success:  # a success's body holds the signing secret: never printed
                hint = f"{created.status_code}; a loopback receiver needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1"
                raise RuntimeError(f"no webhook endpoint ({hint}): {created.text[:200]}")
            out[path] = created.json()["secret"]
    return out


def _pending(dsn: str, merchant_id: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id"
            " WHERE w.merchant_id = %s AND d.status = 'pending'",
            (merchant_id,),
        ).fetchone()
    return int(row[0]) if row else 0


def wait_for_drain(dsn: str, merchant_id: str, limit: float = DRAIN_SECONDS) -> tuple[float, int]:
    """(seconds waited, deliveries still pending) once none is pending or `limit` has passed."""
    started = time.monotonic()
    while (left := _pending(dsn, merchant_id)) and time.monotonic() - started < limit:
        time.sleep(0.25)
    return round(time.monotonic() - started, 2), left


def _events_and_attempts(dsn: str, merchant_id: str) -> tuple[dict[str, int], dict[str, int]]:
    """({event id: created_at in ns since the epoch}, attempt counts by outcome)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint FROM events"
            " WHERE merchant_id = %s AND type = 'charge.created'",
            (merchant_id,),
        ).fetchall()
        attempts = conn.execute(
            "SELECT a.succeeded, count(*) FROM webhook_attempts a"
            " JOIN webhook_deliveries d ON d.id = a.delivery_id"
            " JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.merchant_id = %s GROUP BY 1",
            (merchant_id,),
        ).fetchall()
    counts = {("succeeded" if ok else "failed"): int(n) for ok, n in attempts}
    return {str(i): int(us) * 1000 for i, us in rows}, counts


def analyse(
    events: dict[str, int], records: list[tuple[str, str, int, bool]], paths: list[str]
) -> dict[str, Any]:
    """Per (endpoint, event): first receipt; duplicates, losses, latencies against created_at."""
    first: dict[tuple[str, str], int] = {}
    seen: Counter[tuple[str, str]] = Counter()
    bad_signatures = unknown = 0
    for path, event_id, t_ns, signed in records:
        if path not in paths:
            continue
        if not signed:
            bad_signatures += 1
        if event_id not in events:
            unknown += 1
            continue
        seen[(path, event_id)] += 1
        first[(path, event_id)] = min(t_ns, first.get((path, event_id), t_ns))
    latencies = sorted((t - events[e]) / 1e6 for (_, e), t in first.items())
    # From the first event committed to the last delivery received: the pace the deliveries kept.
    span = (max(first.values()) - min(events.values())) / 1e9 if first else 0.0
    created = sorted(events.values())
    expected = len(events) * len(paths)
    return {
        "events": len(events),
        "deliveries_expected": expected,
        "deliveries_received": sum(seen.values()),
        "lost": expected - len(first),
        "duplicates": {p: sum(n - 1 for (path, _), n in seen.items() if path == p) for p in paths},
        "unknown_events": unknown,
        "bad_signatures": bad_signatures,
        "events_per_second": round(len(created) / ((created[-1] - created[0]) / 1e9), 1)
        if len(created) > 1 and created[-1] > created[0]
        else None,
        "deliveries_per_second": round(len(first) / span, 1) if span > 0 else None,
        "latency_histogram_ms": {
            (f"<={edge}" if edge != float("inf") else f">{BUCKETS[-1]}"): sum(
                1 for x in latencies if low < x <= edge
            )
            for low, edge in zip((float("-inf"), *BUCKETS), (*BUCKETS, float("inf")), strict=True)
        },
        "latency_ms": {
            "p50": _pct(latencies, 50),
            "p99": _pct(latencies, 99),
            "max": round(latencies[-1], 1) if latencies else None,
        },
    }


def run(stack: Any, *, rate: int = 200, seconds: int = 60, endpoints: int = 2) -> dict[str, Any]:
    """The delivery run on `stack` (a BenchStack whose cores allow private webhook targets), then the
    ceiling on the same receiver; the result is JSON-able (see `table`)."""
    import stack as stack_mod
    from process_stats import CpuMeter

    base = stack.gateway_urls[0]
    receiver = Receiver()
    try:
        merchant = stack_mod.sign_up(base, "webhooks")
        by_path = register_endpoints(base, merchant.secret_key, receiver.base_url, endpoints)
        ceiling_secret = "whsec_" + secrets.token_urlsafe(24)
        receiver.set_secrets({**by_path, "/ceiling": ceiling_secret})
        print(f"webhooks: {rate} creates/s for {seconds} s, {endpoints} endpoint(s)", flush=True)
        meter = CpuMeter({name: process.pid for name, process in stack.named().items()})
        meter.start()
        load = asyncio.run(_load(base, merchant.secret_key, rate, seconds))
        drained_after, still_pending = wait_for_drain(stack.database_dsn, merchant.merchant_id)
        cpu = meter.stop(load["creates"])  # per event: its create and its deliveries
        print(f"  load {load}; queue drained after {drained_after} s ({still_pending} pending)", flush=True)
        print(f"webhook ceiling: {CEILING_SECONDS:g} s at {CEILING_CONCURRENCY} concurrent", flush=True)
        ceiling = measure_ceiling(receiver, ceiling_secret)
        records = receiver.stop()
    except BaseException:
        receiver.kill()
        raise
    events, attempts = _events_and_attempts(stack.database_dsn, merchant.merchant_id)
    delivery = analyse(events, records, list(by_path))
    ceiling["bad_signatures"] = sum(1 for p, _, _, ok in records if p == "/ceiling" and not ok)
    latency = delivery["latency_ms"]
    met = {
        "p50": latency["p50"] is not None and latency["p50"] <= TARGETS["p50_ms"],
        "p99": latency["p99"] is not None and latency["p99"] <= TARGETS["p99_ms"],
        "nothing_lost": delivery["lost"] == 0 and delivery["events"] > 0,
        "no_duplicates": not any(delivery["duplicates"].values()),
    }
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "rate": rate,
        "seconds": seconds,
        "endpoints": endpoints,
        "load": load,
        "drain": {"waited_seconds": drained_after, "still_pending": still_pending},
        "attempts": attempts,
        "cpu_per_event": cpu,
        **delivery,
        "ceiling": ceiling,
        "targets": TARGETS,
        "targets_met": {**met, "all": all(met.values())},
    }


def table(result: dict[str, Any]) -> list[str]:
    """Markdown lines: the delivery run, the ceiling, and the targets."""
    lat, ceiling, met = result["latency_ms"], result["ceiling"], result["targets_met"]

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:,.1f}"

    cpu_text = ", ".join(
        f"{k.removesuffix('_cpu_ms_per_req')} {v:.2f} ms"
        for k, v in result["cpu_per_event"].items()
        if k.endswith("_cpu_ms_per_req") and not k.startswith("machine")
    )
    dup = sum(result["duplicates"].values())
    rate = result["deliveries_per_second"]
    return [
        f"Webhooks: {result['rate']} creates/s for {result['seconds']} s (achieved "
        f"{result['load']['creates_per_second']:,.1f}/s, {result['load']['creates']} charges), "
        f"{result['endpoints']} endpoint(s) on a loopback receiver answering 200; CPU per event (its "
        f"create and its deliveries): {cpu_text}.",
        "",
        "| measured | deliveries/s | p50 ms | p99 ms | max ms | expected | received | lost | duplicates "
        "| target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| event committed → delivered | {'–' if rate is None else f'{rate:,.1f}'} | {ms(lat['p50'])} | "
        f"{ms(lat['p99'])} | {ms(lat['max'])} | {result['deliveries_expected']:,} | "
        f"{result['deliveries_received']:,} | {result['lost']:,} | {dup:,} | p50 ≤ 50 {MARK[met['p50']]}, "
        f"p99 ≤ 250 {MARK[met['p99']]}, none lost {MARK[met['nothing_lost']]}, no duplicate "
        f"{MARK[met['no_duplicates']]} |",
        f"| ceiling: one process posting signed bodies ({ceiling['concurrency']} concurrent) | "
        f"{ceiling['deliveries_per_second']:,.1f} | {ms(ceiling['p50_ms'])} | {ms(ceiling['p99_ms'])} | | | "
        f"{ceiling['delivered']:,} | | | |",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--endpoints", type=int, default=2)
    parser.add_argument("--log-level", default=os.environ.get("BENCH_LOG_LEVEL") or "INFO")
    parser.add_argument("--json", type=Path, help="also write the result here")
    parser.add_argument("--ceiling", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ceiling:
        print(json.dumps(asyncio.run(_ceiling(args.ceiling, CEILING_SECONDS, CEILING_CONCURRENCY))))
        return 0
    import stack as stack_mod

    os.environ["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "1"  # the cores inherit it: the receiver is on loopback
    services, admin_dsn = stack_mod.start_services()
    try:
        stack = stack_mod.start_stack(services, admin_dsn, 1, 1, log_level=args.log_level)
        try:
            result = run(stack, rate=args.rate, seconds=args.seconds, endpoints=args.endpoints)
        finally:
            stack_mod.stop_stack(stack, keep_database=False)
    finally:
        stack_mod.stop_services(services)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print("\n".join(table(result)))
    return 0 if result["targets_met"]["all"] else 1


if __name__ == "__main__":
    sys.exit(main())
