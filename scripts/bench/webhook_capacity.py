"""What webhooks cost the platform's capacity: sustained creates without and with one endpoint (issue 27).

    python scripts/bench/webhook_capacity.py --seconds 10 --repeat 3
    python scripts/bench/webhook_capacity.py --trees /tmp/base . --repeat 3   # two versions back to back

Issue 27's bar: "with one webhook endpoint per merchant, sustained creates ≥ 0.6× the rate without
endpoints, deliveries p99 ≤ 1 s". On one stack, two merchants: one with no endpoint, one with one endpoint
(charge.created) on bench_receiver.py's loopback receiver. Creates are driven closed loop by wrk at
`connections` (64, like the bench's create operation: bench/lua/create_charge.lua with an Idempotency-Key),
alternating the two merchants (none, one / one, none, …), `repeat` runs each; the figure is each side's
median and the ratio of the medians. After every one-endpoint run the queue gets a bounded time to drain
before the next run starts, so no run inherits the previous one's deliveries; the backlog left at the end
of the run and the time it took to drain are kept (lag, visible). Delivery latency is the receipt less the
event's `created_at` (the create's commit counts), per run over the events created in that run; at the end
every event of the merchant must have been received exactly once (none lost, none twice).

CPU per create of the core, its webhook dispatcher process (WEBHOOK_DISPATCH=process; none inline), the
gateway, the receiver and the local PostgreSQL server (its postmaster's tree) comes from /proc: over the run
for the runs without endpoint, over the run and its drain for the runs with one (each create and its
delivery). CPU per delivery is the core's and its dispatcher's together, with an endpoint less without; the
core process's own share is kept beside it. With `--trees A B` two stacks (one per source tree) run at once
and the rounds alternate A and B as well.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

import bench_receiver  # noqa: E402
import webhook_bench  # noqa: E402
from ab import summarize  # noqa: E402
from process_stats import CpuMeter, parent_pid, server_tree_cpu_seconds  # noqa: E402
from wrk import run_wrk  # noqa: E402

RATIO_AT_LEAST = 0.6  # creates/s with one endpoint ÷ without
P99_AT_MOST_MS = 1000.0  # event committed → received
DRAIN_SECONDS = 60.0
WARM_UP_SECONDS = 3
SCRIPT = "create_charge.lua"
PROCESSES = ("core", "dispatcher", "gateway", "receiver", "postgres")
DISPATCHER_MODULE = b"core_server.dispatch_process"


def postmaster_pid(dsn: str) -> int | None:
    """The local PostgreSQL server's root process (a backend's parent), None for a server elsewhere."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        backend = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])  # type: ignore[index]
        host = str(conn.info.host)
        # While the backend still runs: once the connection closes its process is gone.
        local = host.startswith("/") or host in ("127.0.0.1", "localhost", "::1")
        return parent_pid(backend) if local else None


def committed_transactions(dsn: str) -> int:
    """Transactions committed in the stack's database so far (pg_stat_database, updated as sessions
    report): with an endpoint less without, the claims', records' and wake-ups' statements per delivery."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def dispatcher_pid(core_pid: int) -> int | None:
    """The core's webhook dispatcher process, if it runs one (a child started as that module)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if ppid == core_pid and DISPATCHER_MODULE in cmdline:
            return int(entry.name)
    return None


class Side:
    """One stack with its two merchants and the receiver of the one-endpoint merchant's deliveries."""

    def __init__(self, label: str, stack: Any, receiver: bench_receiver.Receiver) -> None:
        import stack as stack_mod

        self.label = label
        self.stack = stack
        self.url = stack.gateway_urls[0]
        self.receiver = receiver
        self.none = stack_mod.sign_up(self.url, f"hooks-none-{label}")
        self.one = stack_mod.sign_up(self.url, f"hooks-one-{label}")
        # A path of its own per side: the receiver checks each path's signatures with its secret.
        prefix = f"/{label}"
        by_path = webhook_bench.register_endpoints(
            self.url, self.one.secret_key, receiver.base_url + prefix, 1
        )
        self.secrets = {prefix + path: secret for path, secret in by_path.items()}
        self.pids = {"core": stack.cores[0].pid, "gateway": stack.gateways[0].pid}
        self.runs: dict[str, list[dict[str, Any]]] = {"none": [], "one": []}
        self.drain_seconds = DRAIN_SECONDS
        # PostgreSQL's whole server (its postmaster's tree): with `--trees` the other stack idles meanwhile.
        self.postmaster = postmaster_pid(stack.database_dsn)

    def create(
        self, kind: str, connections: int, seconds: float, record: bool = True, profile: Path | None = None
    ) -> dict[str, Any]:
        merchant = self.none if kind == "none" else self.one
        spy = None
        if profile is not None:
            # py-spy of the core over the run (raw collapsed stacks; ab.py's summarize reads them).
            spy = subprocess.Popen(
                [
                    str(Path(sys.executable).with_name("py-spy")), "record", "--nonblocking", "-r", "100",
                    "-d", str(seconds), "-f", "raw", "-o", str(profile / f"{self.label}-{kind}-core.txt"),
                    "--pid", str(self.pids["core"]),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        pids = {**self.pids, "receiver": self.receiver.pid}
        child = dispatcher_pid(self.pids["core"])
        if child is not None:
            pids["dispatcher"] = child
        meter = CpuMeter(pids)
        meter.start()
        pg_before = server_tree_cpu_seconds(self.postmaster) if self.postmaster else 0.0
        commits_before = committed_transactions(self.stack.database_dsn)
        began = time.time()
        load = run_wrk(
            f"create-{kind}-{self.label}",
            self.url,
            SCRIPT,
            connections=connections,
            seconds=seconds,
            env={"BENCH_SECRET_KEY": merchant.secret_key, "BENCH_IDEMPOTENCY": "1", "BENCH_RUN_ID": "hooks"},
        )
        ended = time.time()
        if spy is not None:
            spy.wait(timeout=60)
        run: dict[str, Any] = {
            "rps": round(load.rps, 1),
            "requests": load.requests,
            "p50_ms": round(load.p50_ms, 1),
            "p99_ms": round(load.p99_ms, 1),
            "failed": load.non_2xx + load.socket_errors,
            "began": began,
            "ended": ended,
        }
        if kind == "one":
            run["pending_at_end"] = webhook_bench._pending(self.stack.database_dsn, merchant.merchant_id)
            run["drain_seconds"], run["still_pending"] = webhook_bench.wait_for_drain(
                self.stack.database_dsn, merchant.merchant_id, self.drain_seconds
            )
        cpu = meter.stop(load.requests)
        if self.postmaster:
            pg_seconds = server_tree_cpu_seconds(self.postmaster) - pg_before
            cpu["postgres_cpu_ms_per_req"] = round(1000 * pg_seconds / max(load.requests, 1), 3)
        time.sleep(0.6)  # sessions report their counts to the statistics at most every 0.5 s (idle: 1 s)
        commits = committed_transactions(self.stack.database_dsn) - commits_before
        run["commits_per_create"] = round(commits / max(load.requests, 1), 3)
        run["cpu_ms_per_create"] = {name: cpu.get(f"{name}_cpu_ms_per_req", 0.0) for name in PROCESSES}
        run["machine_busy"] = cpu["machine_busy"]
        if record:
            self.runs[kind].append(run)
        lag = (
            f"  backlog at end {run['pending_at_end']}, drained in {run['drain_seconds']} s"
            if kind == "one"
            else ""
        )
        print(
            f"  {self.label} {kind:<4} {load.rps:8.0f} creates/s  p50 {load.p50_ms:6.1f}"
            f"  p99 {load.p99_ms:7.1f}"
            f"  core {cpu['core_cpu_ms_per_req']:.3f} disp {cpu.get('dispatcher_cpu_ms_per_req', 0.0):.3f}"
            f" gw {cpu['gateway_cpu_ms_per_req']:.3f}"
            f" recv {cpu['receiver_cpu_ms_per_req']:.3f} pg {cpu.get('postgres_cpu_ms_per_req', 0.0):.3f}"
            f" ms/create  commits {run['commits_per_create']:.2f}/create"
            f"  busy {cpu['machine_busy']:.0%}{lag}"
            + (f"  ({run['failed']} failed {load.error_codes})" if run["failed"] else ""),
            flush=True,
        )
        return run

    def result(self, records: list[tuple[str, str, int, bool]]) -> dict[str, Any]:
        """Medians, the ratio, each run's delivery latency, and losses and duplicates over every event."""
        events, attempts = webhook_bench._events_and_attempts(self.stack.database_dsn, self.one.merchant_id)
        paths = list(self.secrets)
        whole = webhook_bench.analyse(events, records, paths)
        first: dict[str, int] = {}
        for path, event_id, t_ns, _ in records:
            if path in paths and event_id in events:
                first[event_id] = min(t_ns, first.get(event_id, t_ns))
        for run in self.runs["one"]:
            began_ns, ended_ns = int(run["began"] * 1e9), int(run["ended"] * 1e9)
            ids = [e for e, created in events.items() if began_ns <= created <= ended_ns]
            latencies = sorted((first[e] - events[e]) / 1e6 for e in ids if e in first)
            run["events"] = len(ids)
            run["delivery_ms"] = {
                "p50": webhook_bench._pct(latencies, 50),
                "p99": webhook_bench._pct(latencies, 99),
                "max": round(latencies[-1], 1) if latencies else None,
            }
        out: dict[str, Any] = {}
        for kind, runs in self.runs.items():
            out[kind] = {
                "runs": runs,
                "rps": round(statistics.median(r["rps"] for r in runs), 1),
                "cpu_ms_per_create": {
                    name: round(statistics.median(r["cpu_ms_per_create"][name] for r in runs), 3)
                    for name in PROCESSES
                },
            }
        one_runs = self.runs["one"]
        p99s = [r["delivery_ms"]["p99"] for r in one_runs if r["delivery_ms"]["p99"] is not None]
        p50s = [r["delivery_ms"]["p50"] for r in one_runs if r["delivery_ms"]["p50"] is not None]
        ratio = out["one"]["rps"] / out["none"]["rps"] if out["none"]["rps"] else None
        delivery = {
            "p50_ms": round(statistics.median(p50s), 1) if p50s else None,
            "p99_ms": round(statistics.median(p99s), 1) if p99s else None,
            "worst_p99_ms": max(p99s) if p99s else None,
            "backlog_at_end": [r["pending_at_end"] for r in one_runs],
            "drain_seconds": [r["drain_seconds"] for r in one_runs],
            "events": whole["events"],
            "received": whole["deliveries_received"],
            "lost": whole["lost"],
            "duplicates": sum(whole["duplicates"].values()),
            "bad_signatures": whole["bad_signatures"],
            "attempts": attempts,
        }
        one_cpu, none_cpu = out["one"]["cpu_ms_per_create"], out["none"]["cpu_ms_per_create"]
        commits = {
            kind: statistics.median(r["commits_per_create"] for r in runs) for kind, runs in self.runs.items()
        }
        core_process_delivery = one_cpu["core"] - none_cpu["core"]
        core_delivery = core_process_delivery + one_cpu["dispatcher"] - none_cpu["dispatcher"]
        dispatcher_delivery = one_cpu["dispatcher"] - none_cpu["dispatcher"]
        postgres_delivery = one_cpu["postgres"] - none_cpu["postgres"]
        met = {
            "ratio": ratio is not None and ratio >= RATIO_AT_LEAST,
            "p99": delivery["p99_ms"] is not None and delivery["p99_ms"] <= P99_AT_MOST_MS,
            "nothing_lost": delivery["lost"] == 0 and delivery["events"] > 0,
            "no_duplicates": delivery["duplicates"] == 0,
        }
        return {
            **out,
            "ratio": round(ratio, 3) if ratio is not None else None,
            "core_cpu_ms_per_delivery": round(core_delivery, 3),
            "core_process_cpu_ms_per_delivery": round(core_process_delivery, 3),
            "dispatcher_cpu_ms_per_delivery": round(dispatcher_delivery, 3),
            "postgres_cpu_ms_per_delivery": round(postgres_delivery, 3),
            "commits_per_delivery": round(commits["one"] - commits["none"], 3),
            "delivery": delivery,
            "targets_met": {**met, "all": all(met.values())},
        }


def measure(
    sides: list[Side], *, connections: int, seconds: int, repeat: int, profile: Path | None = None
) -> None:
    """Warm-up, then `repeat` rounds alternating the merchants (and the sides, if several); with `profile`
    a py-spy run of each side's core per merchant first (not counted: sampling slows the core)."""
    for side in sides:
        for kind in ("none", "one"):
            side.create(kind, connections, WARM_UP_SECONDS, record=False)
    if profile is not None:
        for side in sides:
            for kind in ("none", "one"):
                side.create(kind, connections, seconds, record=False, profile=profile)
                print(f"profile {side.label} {kind}:\n{summarize(profile / f'{side.label}-{kind}-core.txt')}")
    for n in range(repeat):
        kinds = ("none", "one") if n % 2 == 0 else ("one", "none")
        for side in sides if n % 2 == 0 else sides[::-1]:
            for kind in kinds:
                side.create(kind, connections, seconds)


def run(stack: Any, *, connections: int = 64, seconds: int = 10, repeat: int = 3) -> dict[str, Any]:
    """The measurement on `stack` (a BenchStack whose cores allow private webhook targets)."""
    receiver = bench_receiver.Receiver()
    try:
        side = Side("main", stack, receiver)
        receiver.set_secrets(side.secrets)
        print(
            f"webhook capacity: creates at {connections} connections, no endpoint vs one endpoint, "
            f"{repeat} × {seconds} s each",
            flush=True,
        )
        measure([side], connections=connections, seconds=seconds, repeat=repeat)
        records = receiver.stop()
    except BaseException:
        receiver.kill()
        raise
    return {"connections": connections, "seconds": seconds, "repeat": repeat, **side.result(records)}


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def table(result: dict[str, Any]) -> list[str]:
    """Markdown lines: creates/s and CPU per create without and with one endpoint, the ratio, deliveries."""
    none, one, d, met = result["none"], result["one"], result["delivery"], result["targets_met"]
    mark = webhook_bench.MARK

    def cpu(side: dict[str, Any]) -> str:
        c = side["cpu_ms_per_create"]
        return f"{c['core']:.2f} | {c.get('dispatcher', 0.0):.2f} | {c['gateway']:.2f} | {c['receiver']:.2f}"

    def runs(side: dict[str, Any]) -> str:
        return ", ".join(f"{r['rps']:,.0f}" for r in side["runs"])

    ratio = result["ratio"]
    return [
        f"Webhook capacity: creates at {result['connections']} connections (closed loop), a merchant with no "
        f"endpoint against one with one endpoint on a loopback receiver, alternating, median of "
        f"{result['repeat']} × {result['seconds']} s; CPU ms per create (with an endpoint: the run and its "
        "drain, so each create and its delivery).",
        "",
        "| merchant | creates/s (runs) | creates/s | core CPU ms | dispatcher process CPU ms "
        "| gateway CPU ms | receiver CPU ms | delivery p50 ms | delivery p99 ms | backlog at end of run "
        "| drained in s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
        f"| no endpoint | {runs(none)} | {none['rps']:,.0f} | {cpu(none)} | | | | |",
        f"| one endpoint | {runs(one)} | {one['rps']:,.0f} | {cpu(one)} | {_ms(d['p50_ms'])} | "
        f"{_ms(d['p99_ms'])} | {', '.join(map(str, d['backlog_at_end']))} | "
        f"{', '.join(f'{s:g}' for s in d['drain_seconds'])} |",
        "",
        f"Ratio with ÷ without: **{'–' if ratio is None else f'{ratio:.2f}'}** (≥ {RATIO_AT_LEAST} "
        f"{mark[met['ratio']]}); delivery p99 {_ms(d['p99_ms'])} ms (≤ {P99_AT_MOST_MS:.0f} "
        f"{mark[met['p99']]}; worst run {_ms(d['worst_p99_ms'])}); {d['events']:,} events, {d['received']:,} "
        f"received, lost {d['lost']} {mark[met['nothing_lost']]}, twice {d['duplicates']} "
        f"{mark[met['no_duplicates']]}, bad signatures {d['bad_signatures']}; core CPU per delivery "
        f"≈ {result['core_cpu_ms_per_delivery']:.2f} ms (its dispatcher process included; the core process "
        f"alone {result.get('core_process_cpu_ms_per_delivery', result['core_cpu_ms_per_delivery']):.2f} "
        f"ms; PostgreSQL's share {result.get('postgres_cpu_ms_per_delivery', 0.0):.2f} ms).",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument(
        "--trees", nargs=2, type=Path, metavar=("A", "B"), help="two source trees, back to back"
    )
    parser.add_argument("--env", action="append", default=[], help="NAME=value for the cores (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the result here")
    parser.add_argument("--drain-seconds", type=float, default=DRAIN_SECONDS, help="most a drain waits")
    parser.add_argument("--profile", action="store_true", help="py-spy of the core(s) first, not counted")
    parser.add_argument("--log-level", default=os.environ.get("BENCH_LOG_LEVEL") or "INFO")
    args = parser.parse_args(argv)
    import stack as stack_mod

    from tests.support import processes

    os.environ["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "1"  # the cores inherit it: the receiver is on loopback
    for item in args.env:
        name, _, value = item.partition("=")
        os.environ[name] = value
    services, admin_dsn = stack_mod.start_services()
    stacks: list[Any] = []
    receiver = bench_receiver.Receiver()
    try:
        trees = [("A", args.trees[0]), ("B", args.trees[1])] if args.trees else [("main", ROOT)]
        sides = []
        for label, tree in trees:
            processes.ROOT = tree.resolve()  # _spawn runs `python -m …` from this tree
            stacks.append(stack_mod.start_stack(services, admin_dsn, 1, 1, log_level=args.log_level))
            sides.append(Side(label, stacks[-1], receiver))
            sides[-1].drain_seconds = args.drain_seconds
        receiver.set_secrets({path: s for side in sides for path, s in side.secrets.items()})
        profile = Path(tempfile.mkdtemp(prefix="hooks-profile-")) if args.profile else None
        measure(
            sides, connections=args.connections, seconds=args.seconds, repeat=args.repeat, profile=profile
        )
        records = receiver.stop()
        results = {}
        for side in sides:
            results[side.label] = {
                "connections": args.connections,
                "seconds": args.seconds,
                "repeat": args.repeat,
                **side.result(records),
            }
    except BaseException:
        receiver.kill()
        raise
    finally:
        for stack in stacks:
            stack_mod.stop_stack(stack, keep_database=False)
        stack_mod.stop_services(services)
    for label, result in results.items():
        print(f"\n{label}:\n" + "\n".join(table(result)))
    if len(results) == 2:
        a, b = results["A"], results["B"]
        print(
            f"\nB ÷ A: ratio {a['ratio']} → {b['ratio']}; creates/s with endpoint {a['one']['rps']} → "
            f"{b['one']['rps']}; core CPU per delivery {a['core_cpu_ms_per_delivery']} → "
            f"{b['core_cpu_ms_per_delivery']} ms (core process alone "
            f"{a['core_process_cpu_ms_per_delivery']} → {b['core_process_cpu_ms_per_delivery']} ms, "
            f"dispatcher process {a['dispatcher_cpu_ms_per_delivery']} → "
            f"{b['dispatcher_cpu_ms_per_delivery']} ms, "
            f"PostgreSQL {a['postgres_cpu_ms_per_delivery']} → {b['postgres_cpu_ms_per_delivery']} ms; "
            f"commits per delivery {a['commits_per_delivery']} → {b['commits_per_delivery']}); "
            f"delivery p99 {a['delivery']['p99_ms']} → "
            f"{b['delivery']['p99_ms']} ms"
        )
    print("CAPACITY_JSON " + json.dumps({"load_after": os.getloadavg(), **results}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
