"""`make bench`: the charge path under load against the ceilings of its own building blocks, same run.

    python scripts/bench/bench.py                          # 1 core + 1 gateway
    python scripts/bench/bench.py --cores 2 --gateways 2   # the scale-out topology
    python scripts/bench/bench.py --soak-only --soak 300   # memory soak under mixed traffic
    python scripts/bench/bench.py --ops create --no-ceilings --login-flood   # create p99 under a login flood
    python scripts/bench/bench.py --only billing --cores 2   # the billing run alone (BENCH_ONLY=billing)

Order, all in one run: the ceilings (pgbench running each operation's own statements on a scratch
database; bare Sanic; Sanic → one gRPC call; the naive peer) at 64, 32 and 1 connection(s); then the
stack (fresh database, N cores, M gateways): warm-up, each operation at --connections, --p99-connections
and 1 connection, creates offered open loop at twice the sustained rate (overload.py; --overload-seconds
0 leaves it out), webhook delivery at a steady rate, creates with one webhook endpoint against without
(webhook_capacity.py; BENCH_WEBHOOK_CAPACITY=0 leaves it out), the mixed run and its consistency pass,
the optional soak; then the same operations on a 2+2 stack for the CPU each request costs when scaled
out (1+1 runs only; --no-scale-out leaves it out); then the billing run on a stack of its own
(billing_bench.py; BENCH_BILLING=0 leaves it out, BENCH_ONLY=billing runs it alone after a create-charge
measurement for its ratio). targets.py judges every figure against the issue's bars. Everything is
printed and written to bench/results/<date>-<N>c<M>g.json and the tables of BENCHMARKS.md. Defaults come
from the environment:
BENCH_SECONDS, BENCH_REPEAT, BENCH_CONNECTIONS, BENCH_P99_CONNECTIONS, BENCH_SOAK_SECONDS, BENCH_OPS
(comma list), BENCH_OVERLOAD_SECONDS, BENCH_OVERLOAD_FACTOR, BENCH_WEBHOOK_SECONDS, BENCH_WEBHOOK_RATE,
BENCH_WEBHOOK_CAPACITY, BENCH_LOG_LEVEL, CORES, GATEWAYS.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

import billing_bench  # noqa: E402
import overload  # noqa: E402
import pgbench_operations  # noqa: E402
import report  # noqa: E402
import stack as stack_mod  # noqa: E402
import targets  # noqa: E402
import webhook_bench  # noqa: E402
import webhook_capacity  # noqa: E402
from ceilings import measure_http_ceilings, measure_naive_peer  # noqa: E402
from login_flood import measure_login_flood  # noqa: E402
from memory_soak import mixed_run, settle_and_check, soak  # noqa: E402
from process_stats import CpuMeter  # noqa: E402
from runner import Runner  # noqa: E402

OPERATIONS: dict[str, tuple[str, str, dict[str, str]]] = {
    # name: (lua script, which merchant, extra environment)
    "create": ("create_charge.lua", "writes", {"BENCH_IDEMPOTENCY": "1"}),
    "create_no_key": ("create_charge.lua", "writes", {"BENCH_IDEMPOTENCY": "0"}),
    "retrieve": ("retrieve_charge.lua", "reads", {}),
    "list": ("list_charges.lua", "reads", {}),
    "full_flow": ("full_flow.lua", "writes", {}),
}
SEED_CHARGES = 1000
LIGHT_CONNECTIONS = 1


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cores", type=int, default=_env_int("CORES", 1))
    parser.add_argument("--gateways", type=int, default=_env_int("GATEWAYS", 1))
    parser.add_argument("--seconds", type=int, default=_env_int("BENCH_SECONDS", 10), help="per wrk run")
    parser.add_argument(
        "--repeat", type=int, default=_env_int("BENCH_REPEAT", 3), help="runs per figure (median)"
    )
    parser.add_argument("--connections", type=int, default=_env_int("BENCH_CONNECTIONS", 64))
    parser.add_argument("--p99-connections", type=int, default=_env_int("BENCH_P99_CONNECTIONS", 32))
    parser.add_argument("--ops", default=os.environ.get("BENCH_OPS") or ",".join(OPERATIONS))
    parser.add_argument(
        "--soak", type=int, default=_env_int("BENCH_SOAK_SECONDS", 0), help="soak seconds (0: none)"
    )
    parser.add_argument("--soak-only", action="store_true", help="no ceilings or operations: the soak alone")
    parser.add_argument(
        "--no-ceilings", action="store_true", help="operations only (a quick look while tuning)"
    )
    parser.add_argument(
        "--login-flood",
        action="store_true",
        help="create-charge p99 without and with a wrk login flood, and their ratio (login_flood.py)",
    )
    parser.add_argument("--flood-connections", type=int, default=_env_int("BENCH_FLOOD_CONNECTIONS", 64))
    parser.add_argument(
        "--soak-webhooks",
        action="store_true",
        help="the soak's merchant gets a webhook endpoint on a local sink (WEBHOOK_ALLOW_PRIVATE_TARGETS=1)",
    )
    parser.add_argument(
        "--only",
        choices=["billing"],
        default=os.environ.get("BENCH_ONLY") or None,
        help="one scenario alone: `billing` (the billing run, with a create-charge run for its ratio)",
    )
    parser.add_argument(
        "--no-scale-out", action="store_true", help="1+1 only: no 2+2 stack for the CPU cost of scaling out"
    )
    parser.add_argument("--webhook-seconds", type=int, default=_env_int("BENCH_WEBHOOK_SECONDS", 60))
    parser.add_argument("--webhook-rate", type=int, default=_env_int("BENCH_WEBHOOK_RATE", 200))
    parser.add_argument(
        "--webhook-capacity",
        type=int,
        default=_env_int("BENCH_WEBHOOK_CAPACITY", 1),
        help="creates/s with one webhook endpoint against without (webhook_capacity.py; 0: leave it out)",
    )
    parser.add_argument(
        "--overload-seconds",
        type=int,
        default=_env_int("BENCH_OVERLOAD_SECONDS", 15),
        help="creates offered open loop at --overload-factor × the sustained rate (0: no overload step)",
    )
    parser.add_argument(
        "--overload-factor", type=float, default=float(os.environ.get("BENCH_OVERLOAD_FACTOR") or 2)
    )
    parser.add_argument("--log-level", default=os.environ.get("BENCH_LOG_LEVEL") or "INFO")
    parser.add_argument(
        "--keep-database", action="store_true", help="leave the bench database for inspection"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        default=os.environ.get("BENCH_PROFILE") == "1",
        help="py-spy flame graphs of every process during each operation (bench/tmp/profiles)",
    )
    args = parser.parse_args(argv)
    args.ops = [op for op in args.ops.split(",") if op and op != "none"]
    unknown = set(args.ops) - set(OPERATIONS)
    if unknown:
        parser.error(f"unknown operations {sorted(unknown)}; known: {', '.join(OPERATIONS)}")
    if args.soak_only and args.soak <= 0:
        args.soak = 300
    return args


def measure_ceilings(runner: Runner, admin_dsn: str, args: argparse.Namespace) -> dict[str, Any]:
    """The building blocks alone, at the operations' connection counts: pgbench of each operation's
    statements, bare Sanic, Sanic → one gRPC call, and the naive peer (Sanic → gRPC → one transaction)."""
    print("ceilings:", flush=True)
    levels = [args.connections, args.p99_connections, LIGHT_CONNECTIONS]

    def database_for(name: str) -> str:
        return stack_mod.with_database(admin_dsn, name)

    per_operation = pgbench_operations.measure_all(
        admin_dsn, database_for, [args.connections, LIGHT_CONNECTIONS], args.seconds, args.repeat
    )
    for name, by_level in per_operation.items():
        for level, figures in by_level.items():
            print(
                f"  pgbench {name:<9} {level:<4} {figures['rps']:>9,.0f} TPS    "
                f"p50 {figures['p50_ms']:6.2f} ms  p99 {figures['p99_ms']:7.2f} ms",
                flush=True,
            )

    def measure(name: str, url: str, script: str, conns: int) -> Any:
        meter = CpuMeter({})
        meter.start()
        summary = runner.median(name, url, script, conns)
        summary["cpu"] = meter.stop(summary["requests"])
        return summary

    http = measure_http_ceilings(measure, levels)
    naive = measure_naive_peer(measure, [args.connections], admin_dsn, database_for)
    return {
        # The create statement's figure under its old name: the tables of earlier runs compare with it.
        "pgbench": per_operation["create"][f"c{args.connections}"],
        "pgbench_operations": per_operation,
        **http,
        "naive_peer": naive,
    }


def prepare(stack: stack_mod.BenchStack, work: Path) -> dict[str, Any]:
    base = stack.gateway_urls[0]
    merchants = {label: stack_mod.sign_up(base, label) for label in ("reads", "writes", "mixed", "soak")}
    started = time.monotonic()
    ids = stack_mod.seed_charges(base, merchants["reads"], SEED_CHARGES)
    (work / "charge_ids.txt").write_text("\n".join(ids) + "\n")
    print(f"prepared 4 merchants, {len(ids)} seed charges in {time.monotonic() - started:.1f} s", flush=True)
    return merchants


def measure_operations(
    runner: Runner,
    stack: stack_mod.BenchStack,
    merchants: dict[str, Any],
    work: Path,
    args: argparse.Namespace,
    levels: list[int],
) -> dict[str, Any]:
    """Each operation at every connection count of `levels` (the first is the throughput figure, with
    the CPU every process spent per request)."""
    url = stack.gateway_urls[0]
    pids = {name: process.pid for name, process in stack.named().items()}

    def env_for(merchant: str, extra: dict[str, str]) -> dict[str, str]:
        return {
            "BENCH_SECRET_KEY": merchants[merchant].secret_key,
            "BENCH_CHARGE_IDS": str(work / "charge_ids.txt"),
            **extra,
        }

    print("warm-up:", flush=True)
    runner.once("warm-up", url, "create_charge.lua", args.connections, seconds=3, env=env_for("writes", {}))
    runner.once("warm-up", url, "retrieve_charge.lua", args.connections, seconds=2, env=env_for("reads", {}))
    print("operations:", flush=True)
    out: dict[str, Any] = {}
    for name in args.ops:
        script, merchant, extra = OPERATIONS[name]
        env = env_for(merchant, extra)
        meter = CpuMeter(pids)
        meter.start()
        profilers = start_profiles(name, pids, args.seconds) if args.profile else []
        first = runner.median(name, url, script, levels[0], env=env)
        out[name] = {f"c{levels[0]}": first, "cpu": meter.stop(first["requests"])}
        for profiler in profilers:
            profiler.wait(timeout=60)
        for connections in levels[1:]:
            out[name][f"c{connections}"] = runner.median(name, url, script, connections, env=env)
        if name == "full_flow":
            out[name]["flows_per_second"] = round(first["rps"] / 4, 1)
    return out


def on_stack(
    runner: Runner, services: Any, admin_dsn: str, cores: int, gateways: int, args: argparse.Namespace
) -> contextlib.AbstractContextManager[stack_mod.BenchStack]:
    """A fresh stack of `cores` + `gateways`, wrk's threads spread over its gateways, stopped at the end."""

    @contextlib.contextmanager
    def running() -> Any:
        print(f"starting {cores} core(s) + {gateways} gateway(s)", flush=True)
        stack = stack_mod.start_stack(services, admin_dsn, cores, gateways, log_level=args.log_level)
        targets_before = runner.env.pop("BENCH_TARGETS", None)
        if len(stack.gateways) > 1:  # wrk threads are spread over the gateways (bench/lua/common.lua)
            runner.env["BENCH_TARGETS"] = ",".join(g.address for g in stack.gateways)
        try:
            yield stack
        finally:
            runner.env.pop("BENCH_TARGETS", None)
            if targets_before:
                runner.env["BENCH_TARGETS"] = targets_before
            stack_mod.stop_stack(stack, keep_database=args.keep_database)

    return running()


def scale_out(runner: Runner, services: Any, admin_dsn: str, args: argparse.Namespace) -> dict[str, Any]:
    """The same operations at --connections on 2 cores + 2 gateways: the CPU every process spends per
    request, against 1+1's (targets.scale_out_costs), and the consistency pass of a mixed run there."""
    with on_stack(runner, services, admin_dsn, 2, 2, args) as stack, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        merchants = prepare(stack, work)
        operations = measure_operations(runner, stack, merchants, work, args, [args.connections])
        load, out_dir = mixed_run(runner, stack, merchants["mixed"], max(args.seconds * 2, 10), "mixed")
        return {
            "stack": stack_mod.describe(stack),
            "operations": operations,
            "mixed": {"load": load},
            "consistency": settle_and_check(stack, out_dir, merchants["mixed"]),
        }


def webhooks(stack: stack_mod.BenchStack, args: argparse.Namespace) -> dict[str, Any]:
    print(f"webhook delivery: {args.webhook_rate} events/s for {args.webhook_seconds} s:", flush=True)
    return webhook_bench.run(stack, rate=args.webhook_rate, seconds=args.webhook_seconds)


def overload_step(
    runner: Runner,
    stack: stack_mod.BenchStack,
    merchants: dict[str, Any],
    operations: dict[str, Any],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Creates offered open loop at `--overload-factor` × the sustained create rate (overload.py): the
    sustained rate is this run's create throughput at --connections, measured here when it was not."""
    url = stack.gateway_urls[0]
    script, merchant, extra = OPERATIONS["create"]
    sustained = operations.get("create", {}).get(f"c{args.connections}", {}).get("rps")
    if not sustained:
        env = {"BENCH_SECRET_KEY": merchants[merchant].secret_key, **extra}
        sustained = runner.median("create", url, script, args.connections, env=env)["rps"]
    return overload.measure(
        url, merchants[merchant].secret_key, sustained, args.overload_seconds, args.overload_factor
    )


def login_flood(
    runner: Runner, stack: stack_mod.BenchStack, merchants: dict[str, Any], args: argparse.Namespace
) -> dict[str, Any]:
    url = stack.gateway_urls[0]
    script, merchant, extra = OPERATIONS["create"]
    env = {"BENCH_SECRET_KEY": merchants[merchant].secret_key, **extra}
    return measure_login_flood(
        lambda: runner.median("create", url, script, args.p99_connections, env=env),
        url,
        seconds=args.seconds,
        repeat=args.repeat,
        flood_connections=args.flood_connections,
        env=runner.env,
    )


def start_profiles(name: str, pids: dict[str, int], seconds: int) -> list[subprocess.Popen[bytes]]:
    """py-spy (a dev dependency) sampling each process for the first run of an operation; SVG flame
    graphs land in bench/tmp/profiles/. Sampling costs a little throughput: profile runs are not for the
    table."""
    out = ROOT / "bench" / "tmp" / "profiles"
    out.mkdir(parents=True, exist_ok=True)
    spy = Path(sys.executable).with_name("py-spy")
    # BENCH_PROFILE_FORMAT=raw writes collapsed stacks (.txt), for grep and scripts rather than a browser.
    fmt = os.environ.get("BENCH_PROFILE_FORMAT") or "flamegraph"
    suffix = {"flamegraph": "svg", "raw": "txt", "speedscope": "json"}[fmt]
    return [
        subprocess.Popen(
            [
                str(spy),
                "record",
                "--nonblocking",
                "-r",
                "100",
                "-d",
                str(max(1, seconds - 1)),
                "-f",
                fmt,
                "-p",
                str(pid),
                "-o",
                str(out / f"{name}-{process}.{suffix}"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for process, pid in pids.items()
    ]


def billing(
    runner: Runner,
    services: Any,
    admin_dsn: str,
    args: argparse.Namespace,
    create_rps: float | None,
) -> dict[str, Any]:
    """The billing run on a fresh stack (billing_bench.py); without `create_rps` (the scenario alone) the
    create-charge figure of its ratio is measured first on that same stack, as in the full bench."""
    stack = billing_bench.start_billing_stack(services, admin_dsn, args.cores, args.gateways, args.log_level)
    try:
        if len(stack.gateways) > 1:
            runner.env["BENCH_TARGETS"] = ",".join(g.address for g in stack.gateways)
        create = None
        if create_rps is None:
            url = stack.gateway_urls[0]
            writes = stack_mod.sign_up(url, "writes")
            script, _, extra = OPERATIONS["create"]
            env = {"BENCH_SECRET_KEY": writes.secret_key, **extra}
            print("create charge, for the billing run's ratio:", flush=True)
            runner.once("warm-up", url, script, args.connections, seconds=3, env=env)
            create = runner.median("create", url, script, args.connections, env=env)
            create_rps = create["rps"]
        out = billing_bench.run(
            stack,
            create_rps=create_rps,
            pgbench_clients=args.connections,
            pgbench_seconds=args.seconds,
            profile=start_profiles if args.profile else None,
        )
        if create is not None:
            out["create"] = create
        return out
    finally:
        stack_mod.stop_stack(stack, keep_database=args.keep_database)


def host_info() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    subprocess.run(["bash", str(HERE / "ensure_wrk.sh")], check=True)
    # The webhook receiver is on loopback; the cores inherit this from the bench's environment.
    os.environ["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "1"
    result: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": host_info(),
        "topology": {"cores": args.cores, "gateways": args.gateways},
        "seconds": args.seconds,
        "connections": args.connections,
        "p99_connections": args.p99_connections,
        "repeat": args.repeat,
    }
    runner = Runner(args)
    services, admin_dsn = stack_mod.start_services()
    try:
        if args.only == "billing":
            result["billing"] = billing(runner, services, admin_dsn, args, None)
            return _finish_billing_only(result)
        if not (args.soak_only or args.no_ceilings):
            result["ceilings"] = measure_ceilings(runner, admin_dsn, args)
        with on_stack(runner, services, admin_dsn, args.cores, args.gateways, args) as stack:
            result["stack"] = stack_mod.describe(stack)
            measure_stack(runner, stack, args, result)
        full = "ceilings" in result
        if full and not args.no_scale_out and (args.cores, args.gateways) == (1, 1):
            print("scale-out: the same operations on 2 cores + 2 gateways", flush=True)
            result["scale_out"] = scale_out(runner, services, admin_dsn, args)
        if full and os.environ.get("BENCH_BILLING") != "0":
            create_rps = result["operations"].get("create", {}).get(f"c{args.connections}", {}).get("rps")
            result["billing"] = billing(runner, services, admin_dsn, args, create_rps)
    finally:
        stack_mod.stop_services(services)
    if "ceilings" in result:
        result["ratios"] = report.ratios(result["operations"], result["ceilings"])
        result["composite"] = targets.composite_ceilings(result, f"c{args.connections}")
        result["targets"] = targets.checks(result)
    return _finish(result, args)


def measure_stack(
    runner: Runner, stack: stack_mod.BenchStack, args: argparse.Namespace, result: dict[str, Any]
) -> None:
    """Everything measured on the main stack, in order, into `result`."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        work = Path(tmp)
        merchants = prepare(stack, work)
        if not args.soak_only:
            levels = [args.connections, args.p99_connections, LIGHT_CONNECTIONS]
            result["operations"] = measure_operations(runner, stack, merchants, work, args, levels)
            if args.overload_seconds > 0:
                result["overload"] = overload_step(runner, stack, merchants, result["operations"], args)
            if args.login_flood:
                result["login_flood"] = login_flood(runner, stack, merchants, args)
            if args.webhook_seconds > 0:
                result["webhooks"] = webhooks(stack, args)
            if args.webhook_capacity:
                result["webhook_capacity"] = webhook_capacity.run(
                    stack, connections=args.connections, seconds=args.seconds, repeat=args.repeat
                )
            print("mixed run and consistency pass:", flush=True)
            load, out_dir = mixed_run(runner, stack, merchants["mixed"], max(args.seconds * 2, 10), "mixed")
            result["mixed"] = {"load": load}
            result["consistency"] = settle_and_check(stack, out_dir, merchants["mixed"])
        if args.soak > 0:
            result["soak"] = soak(runner, stack, merchants["soak"], args.soak)


def _finish(result: dict[str, Any], args: argparse.Namespace) -> int:
    path = report.write_json(result, report.SCRATCH_DIR if args.no_ceilings else report.RESULTS_DIR)
    report.print_summary(result)
    if "ratios" in result:
        report.update_benchmarks_md(result, path)
    if "soak" in result and not args.no_ceilings:
        report.update_soak_md(result, path)
    print(f"\nresults: {path.relative_to(ROOT)}" + ("; table: BENCHMARKS.md" if "ratios" in result else ""))
    if "billing" in result:
        print("\nbilling run:\n" + "\n".join(billing_bench.table(result["billing"])))
    consistent = [
        result.get(part, {}).get("consistency", {"ok": True})["ok"]
        for part in ("billing", "scale_out", "soak")
    ]
    return 0 if all(consistent) and result.get("consistency", {"ok": True})["ok"] else 1


def _finish_billing_only(result: dict[str, Any]) -> int:
    topo = result["topology"]
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H%M%SZ")
    report.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = report.RESULTS_DIR / f"{stamp}-{topo['cores']}c{topo['gateways']}g-billing.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print("\nbilling run:\n" + "\n".join(billing_bench.table(result["billing"])))
    print(f"\nresults: {path.relative_to(ROOT)}")
    return 0 if result["billing"]["consistency"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
