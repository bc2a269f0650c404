"""The speed targets, judged from one `make bench` result: pure arithmetic on its figures, no I/O.

Each operation is judged against its own composite ceiling, 1 / (1/two-hop + 1/pgbench of the
operation's own statements) at the same concurrency: what a request would reach if it did nothing but
the two hops and its database work, both on this machine's two cores. The other bars: a naive peer
(the same parts wired without auth, rate limit, idempotency or logging), tails at 32 connections,
latency at 1 connection, webhook delivery at 200 events/s, the create rate with one webhook endpoint
against the rate without (and its deliveries' p99), the CPU cost of scaling out, and creates
offered open loop at twice the sustained rate (goodput and the admitted requests' p99).
"""

from __future__ import annotations

from typing import Any

# Share of the composite ceiling's req/s at 64 connections.
THROUGHPUT_TARGETS = {"create": 0.60, "retrieve": 0.60, "list": 0.50, "full_flow": 0.40}
NAIVE_PEER_AT_LEAST = 1.0  # create ÷ naive peer, req/s at 64 connections
TAIL_FACTOR = 2.5  # p99 ≤ 2.5 × p50 at 32 connections
MAX_REQUEST_MS = 1000.0  # no request over 1 s in any run
LIGHT_LOAD_SLACK_MS = 1.0  # create p50 at 1 connection ≤ two-hop p50 + pgbench create p50 + 1 ms
WEBHOOK_P50_MS, WEBHOOK_P99_MS = 50.0, 250.0
# Issue 27: with one endpoint per merchant, creates/s ≥ 0.6 × the rate without; deliveries p99 ≤ 1 s.
WEBHOOK_CAPACITY_RATIO, WEBHOOK_CAPACITY_P99_MS = 0.6, 1000.0
SCALE_OUT_CPU_AT_MOST = 1.15  # CPU per request of every process, 2+2 ÷ 1+1
OVERLOAD_GOODPUT_AT_LEAST = 0.9  # at 2× the sustained create rate: 2xx/s ÷ the sustained rate
OVERLOAD_ADMITTED_P99_MS = 1000.0  # … and the admitted creates' p99, from each one's due time

# The statements of each operation, as pgbench_operations.py names its scripts. A full flow is four
# requests (create, checkout completion, capture, refund); its database time per request is the mean of
# theirs. A checkout completion is an activation and a fenced save like a capture: capture stands for it.
STATEMENTS: dict[str, tuple[str, ...]] = {
    "create": ("create",),
    "create_no_key": ("create",),
    "retrieve": ("retrieve",),
    "list": ("list",),
    "full_flow": ("create", "capture", "capture", "refund"),
}


def composite(two_hop_rps: float, database_rps: float) -> float:
    """Requests/s of a request that is the two hops and then its database work, one after the other on
    the same machine: their times per request add up."""
    if two_hop_rps <= 0 or database_rps <= 0:
        raise ValueError("ceilings must be positive")
    return 1.0 / (1.0 / two_hop_rps + 1.0 / database_rps)


def database_rps(pgbench: dict[str, Any], operation: str, level: str) -> float | None:
    """Transactions/s of the operation's statements at `level` ("c64"), or None if one was not measured.
    Several statements per request (a flow) add their times: the harmonic mean of their rates."""
    rates = [pgbench.get(name, {}).get(level, {}).get("rps") for name in STATEMENTS.get(operation, ())]
    if not rates or any(not r for r in rates):
        return None
    return len(rates) / sum(1.0 / r for r in rates)


def composite_ceilings(result: dict[str, Any], level: str = "c64") -> dict[str, dict[str, Any]]:
    """Per operation: its database ceiling, its composite ceiling and its share of it."""
    ceilings = result.get("ceilings", {})
    two_hop = ceilings.get("two_hop", {}).get(level, {}).get("rps")
    pgbench = ceilings.get("pgbench_operations", {})
    out: dict[str, dict[str, Any]] = {}
    for name, op in result.get("operations", {}).items():
        db = database_rps(pgbench, name, level)
        if not two_hop or db is None or level not in op:
            continue
        ceiling = composite(two_hop, db)
        share = op[level]["rps"] / ceiling
        entry: dict[str, Any] = {
            "database_rps": round(db, 1),
            "composite_rps": round(ceiling, 1),
            "share": round(share, 3),
        }
        if name in THROUGHPUT_TARGETS:
            entry["target"] = THROUGHPUT_TARGETS[name]
            entry["ok"] = share >= THROUGHPUT_TARGETS[name]
        out[name] = entry
    return out


def _check(name: str, measured: float | None, bar: str, ok: bool | None) -> dict[str, Any]:
    return {"target": name, "measured": measured, "bar": bar, "ok": ok}


def checks(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of the issue with its measured figure; `ok` is None where this run did not measure it."""
    out: list[dict[str, Any]] = []
    for name, entry in composite_ceilings(result).items():
        if "target" in entry:
            out.append(
                _check(
                    f"{name} ÷ its composite ceiling", entry["share"], f"≥ {entry['target']:.0%}", entry["ok"]
                )
            )
    ops = result.get("operations", {})
    out += _naive_peer(result, ops)
    for name, op in ops.items():
        c32 = op.get("c32")
        if not c32:
            continue
        factor = c32["p99_ms"] / c32["p50_ms"] if c32["p50_ms"] else None
        out.append(
            _check(
                f"{name} p99 ÷ p50 at 32 connections",
                round(factor, 2) if factor else None,
                f"≤ {TAIL_FACTOR}",
                factor is not None and factor <= TAIL_FACTOR,
            )
        )
        worst = max(c32.get("worst_max_ms", c32["max_ms"]), op.get("c64", {}).get("worst_max_ms", 0.0))
        out.append(
            _check(
                f"{name} slowest request, any run",
                worst,
                f"≤ {MAX_REQUEST_MS:.0f} ms",
                worst <= MAX_REQUEST_MS,
            )
        )
    out += _light_load(result, ops)
    out += _webhooks(result.get("webhooks"))
    out += webhook_capacity(result.get("webhook_capacity"))
    out += _overload(result.get("overload"))
    out += _scale_out(result)
    return out


def _overload(overload: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Offered twice the sustained create rate, the platform still completes ≥ 90 % of that rate and
    answers the admitted requests within a second (the rest with 503 and Retry-After, at once)."""
    goodput_bar = f"≥ {OVERLOAD_GOODPUT_AT_LEAST:.1f}× sustained"
    p99_bar = f"≤ {OVERLOAD_ADMITTED_P99_MS:.0f} ms"
    if not overload or not overload.get("sustained_rps"):
        return [
            _check("overload goodput ÷ sustained create rate", None, goodput_bar, None),
            _check("overload admitted p99", None, p99_bar, None),
        ]
    ratio = overload["goodput_rps"] / overload["sustained_rps"]
    p99 = overload["admitted_ms"]["p99"]
    return [
        _check(
            "overload goodput ÷ sustained create rate",
            round(ratio, 2),
            goodput_bar,
            ratio >= OVERLOAD_GOODPUT_AT_LEAST,
        ),
        _check("overload admitted p99", p99, p99_bar, p99 is not None and p99 <= OVERLOAD_ADMITTED_P99_MS),
        _check(
            "overload 503s without Retry-After",
            overload["shed_without_retry_after"],
            "0",
            overload["shed_without_retry_after"] == 0,
        ),
    ]


def _naive_peer(result: dict[str, Any], ops: dict[str, Any]) -> list[dict[str, Any]]:
    peer = result.get("ceilings", {}).get("naive_peer", {}).get("c64", {}).get("rps")
    create = ops.get("create", {}).get("c64", {}).get("rps")
    if not peer or not create:
        return [_check("create ÷ naive peer", None, f"≥ {NAIVE_PEER_AT_LEAST:.1f}×", None)]
    ratio = create / peer
    return [
        _check(
            "create ÷ naive peer",
            round(ratio, 2),
            f"≥ {NAIVE_PEER_AT_LEAST:.1f}×",
            ratio >= NAIVE_PEER_AT_LEAST,
        )
    ]


def light_load_bar(result: dict[str, Any]) -> float | None:
    """two-hop p50 + pgbench create p50 + 1 ms, all at 1 connection."""
    ceilings = result.get("ceilings", {})
    hop = ceilings.get("two_hop", {}).get("c1", {}).get("p50_ms")
    db = ceilings.get("pgbench_operations", {}).get("create", {}).get("c1", {}).get("p50_ms")
    if hop is None or db is None:
        return None
    return hop + db + LIGHT_LOAD_SLACK_MS


def _light_load(result: dict[str, Any], ops: dict[str, Any]) -> list[dict[str, Any]]:
    bar = light_load_bar(result)
    p50 = ops.get("create", {}).get("c1", {}).get("p50_ms")
    if bar is None or p50 is None:
        return [_check("create p50 at 1 connection", p50, "≤ two-hop + pgbench + 1 ms", None)]
    return [_check("create p50 at 1 connection", p50, f"≤ {bar:.2f} ms", p50 <= bar)]


def _webhooks(webhooks: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not webhooks:
        return [_check("webhook delivery at 200 events/s", None, "p50 ≤ 50 ms, p99 ≤ 250 ms", None)]
    latency = webhooks.get("latency_ms", {})
    p50, p99 = latency.get("p50"), latency.get("p99")
    lost = webhooks.get("lost", 0)
    twice = sum(webhooks.get("duplicates", {}).values())  # per endpoint
    return [
        _check(
            "webhook delivered p50",
            p50,
            f"≤ {WEBHOOK_P50_MS:.0f} ms",
            p50 is not None and p50 <= WEBHOOK_P50_MS,
        ),
        _check(
            "webhook delivered p99",
            p99,
            f"≤ {WEBHOOK_P99_MS:.0f} ms",
            p99 is not None and p99 <= WEBHOOK_P99_MS,
        ),
        _check("webhooks lost", lost, "0", lost == 0),
        _check("webhooks delivered twice to one endpoint", twice, "0", twice == 0),
    ]


def webhook_capacity(capacity: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Issue 27: sustained creates with one endpoint ÷ without (closed loop, medians), the deliveries' p99
    during the runs with it, and nothing lost or sent twice once the queue drained."""
    ratio_bar, p99_bar = f"≥ {WEBHOOK_CAPACITY_RATIO}", f"≤ {WEBHOOK_CAPACITY_P99_MS:.0f} ms"
    if not capacity or capacity.get("ratio") is None:
        return [
            _check("creates with one webhook endpoint ÷ without", None, ratio_bar, None),
            _check("webhook delivery p99 at the full create rate", None, p99_bar, None),
        ]
    ratio, delivery = capacity["ratio"], capacity["delivery"]
    p99 = delivery.get("p99_ms")
    return [
        _check(
            "creates with one webhook endpoint ÷ without", ratio, ratio_bar, ratio >= WEBHOOK_CAPACITY_RATIO
        ),
        _check(
            "webhook delivery p99 at the full create rate",
            p99,
            p99_bar,
            p99 is not None and p99 <= WEBHOOK_CAPACITY_P99_MS,
        ),
        _check("webhooks lost at the full create rate", delivery["lost"], "0", delivery["lost"] == 0),
        _check(
            "webhooks delivered twice at the full create rate",
            delivery["duplicates"],
            "0",
            delivery["duplicates"] == 0,
        ),
    ]


def app_cpu_ms(cpu: dict[str, float]) -> float:
    """CPU ms per request of every core and gateway process (the machine's total, load generator and
    database included, is `machine_cpu_ms_per_req`)."""
    return sum(v for k, v in cpu.items() if k.endswith("_cpu_ms_per_req") and not k.startswith("machine"))


def scale_out_costs(result: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per operation: app CPU ms per request in 1+1 and in 2+2, and their ratio."""
    wide = result.get("scale_out", {}).get("operations", {})
    out: dict[str, dict[str, float]] = {}
    for name, op in result.get("operations", {}).items():
        if name not in wide or "cpu" not in op or "cpu" not in wide[name]:
            continue
        narrow_ms, wide_ms = app_cpu_ms(op["cpu"]), app_cpu_ms(wide[name]["cpu"])
        if narrow_ms > 0:
            out[name] = {
                "one_one_ms": round(narrow_ms, 3),
                "two_two_ms": round(wide_ms, 3),
                "ratio": round(wide_ms / narrow_ms, 3),
            }
    return out


def _scale_out(result: dict[str, Any]) -> list[dict[str, Any]]:
    costs = scale_out_costs(result)
    if not costs:
        return [_check("CPU per request, 2+2 ÷ 1+1", None, f"≤ {SCALE_OUT_CPU_AT_MOST:.2f}", None)]
    return [
        _check(
            f"{name} CPU per request, 2+2 ÷ 1+1",
            c["ratio"],
            f"≤ {SCALE_OUT_CPU_AT_MOST:.2f}",
            c["ratio"] <= SCALE_OUT_CPU_AT_MOST,
        )
        for name, c in costs.items()
    ]
