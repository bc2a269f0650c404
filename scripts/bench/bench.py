"""`make bench`: the charge path under load against the ceilings of its own building blocks, same run.

    python scripts/bench/bench.py                          # 1 core + 1 gateway
    python scripts/bench/bench.py --cores 2 --gateways 2   # the scale-out topology
    python scripts/bench/bench.py --soak-only --soak 300   # memory soak under mixed traffic

Order: the ceilings (pgbench on a scratch database; bare Sanic; Sanic → one gRPC call), then the stack
(fresh database, N cores, M gateways), warm-up, each operation at --connections and again at
--p99-connections, the mixed run and its consistency pass, the optional soak. Everything is printed
and written to bench/results/<date>-<N>c<M>g.json and the table of BENCHMARKS.md. Defaults come from
the environment: BENCH_SECONDS, BENCH_REPEAT, BENCH_CONNECTIONS, BENCH_P99_CONNECTIONS,
BENCH_SOAK_SECONDS, BENCH_OPS (comma list), BENCH_LOG_LEVEL, CORES, GATEWAYS.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
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

import consistency  # noqa: E402
import report  # noqa: E402
import stack as stack_mod  # noqa: E402
from ceilings import measure_http_ceilings  # noqa: E402
from pgbench_ceiling import run_pgbench  # noqa: E402
from process_stats import CpuMeter, rss_kib  # noqa: E402
from wrk import LoadResult, run_wrk  # noqa: E402

OPERATIONS: dict[str, tuple[str, str, dict[str, str]]] = {
    # name: (lua script, which merchant, extra environment)
    "create": ("create_charge.lua", "writes", {"BENCH_IDEMPOTENCY": "1"}),
    "create_no_key": ("create_charge.lua", "writes", {"BENCH_IDEMPOTENCY": "0"}),
    "retrieve": ("retrieve_charge.lua", "reads", {}),
    "list": ("list_charges.lua", "reads", {}),
    "full_flow": ("full_flow.lua", "writes", {}),
}
SEED_CHARGES = 1000
SOAK_SAMPLE_SECONDS = 5.0


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cores", type=int, default=_env_int("CORES", 1))
    parser.add_argument("--gateways", type=int, default=_env_int("GATEWAYS", 1))
    parser.add_argument("--seconds", type=int, default=_env_int("BENCH_SECONDS", 10), help="per wrk run")
    parser.add_argument("--repeat", type=int, default=_env_int("BENCH_REPEAT", 3), help="runs per figure (median)")
    parser.add_argument("--connections", type=int, default=_env_int("BENCH_CONNECTIONS", 64))
    parser.add_argument("--p99-connections", type=int, default=_env_int("BENCH_P99_CONNECTIONS", 32))
    parser.add_argument("--ops", default=os.environ.get("BENCH_OPS") or ",".join(OPERATIONS))
    parser.add_argument("--soak", type=int, default=_env_int("BENCH_SOAK_SECONDS", 0), help="soak seconds (0: none)")
    parser.add_argument("--soak-only", action="store_true", help="no ceilings or operations: the soak alone")
    parser.add_argument("--no-ceilings", action="store_true", help="operations only (a quick look while tuning)")
    parser.add_argument("--log-level", default=os.environ.get("BENCH_LOG_LEVEL") or "INFO")
    parser.add_argument("--keep-database", action="store_true", help="leave the bench database for inspection")
    parser.add_argument("--profile", action="store_true", default=os.environ.get("BENCH_PROFILE") == "1",
                        help="py-spy flame graphs of every process during each operation (bench/tmp/profiles)")
    args = parser.parse_args(argv)
    args.ops = [op for op in args.ops.split(",") if op and op != "none"]
    unknown = set(args.ops) - set(OPERATIONS)
    if unknown:
        parser.error(f"unknown operations {sorted(unknown)}; known: {', '.join(OPERATIONS)}")
    if args.soak_only and args.soak <= 0:
        args.soak = 300
    return args


class Runner:
    """Runs wrk against the stack with repeats; keeps the arguments every run shares."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.threads = max(2, args.gateways)
        self.env: dict[str, str] = {"BENCH_RUN_ID": f"r{int(time.time())}"}

    def once(self, name: str, url: str, script: str, connections: int, seconds: float | None = None,
             env: dict[str, str] | None = None) -> LoadResult:
        result = run_wrk(name, url, script, connections=connections, seconds=seconds or self.args.seconds,
                         threads=self.threads, env={**self.env, **(env or {})})
        bad = result.non_2xx + result.socket_errors
        print(f"  {name:<14} c={connections:<3} {result.rps:>9,.0f} req/s  p50 {result.p50_ms:6.1f} ms  "
              f"p99 {result.p99_ms:7.1f} ms" + (f"  ({bad} failed: {result.error_codes})" if bad else ""),
              flush=True)
        return result

    def median(self, name: str, url: str, script: str, connections: int,
               env: dict[str, str] | None = None) -> dict[str, Any]:
        """`repeat` runs; each figure is the median over them (runs are kept for the record)."""
        runs = [self.once(name, url, script, connections, env=env) for _ in range(self.args.repeat)]
        return summarize(runs)


def summarize(runs: list[LoadResult]) -> dict[str, Any]:
    first = runs[0].as_json()
    out = {**first}
    for key in ("rps", "p50_ms", "p90_ms", "p99_ms", "max_ms"):
        out[key] = round(statistics.median(getattr(r, key) for r in runs), 2)
    out["requests"] = sum(r.requests for r in runs)
    out["non_2xx"] = sum(r.non_2xx for r in runs)
    out["socket_errors"] = sum(r.socket_errors for r in runs)
    out["runs_rps"] = [round(r.rps, 1) for r in runs]
    return out


def measure_ceilings(runner: Runner, admin_dsn: str, args: argparse.Namespace) -> dict[str, Any]:
    print("ceilings:", flush=True)
    pg = [run_pgbench(admin_dsn, lambda n: stack_mod.with_database(admin_dsn, n),
                      clients=args.connections, seconds=args.seconds) for _ in range(args.repeat)]
    pg_json = [p.as_json() for p in pg]
    pgbench = {**pg_json[0], "rps": statistics.median(p["rps"] for p in pg_json),
               "p50_ms": statistics.median(p["p50_ms"] for p in pg_json),
               "p99_ms": statistics.median(p["p99_ms"] for p in pg_json), "script": pg[0].script}
    print(f"  pgbench        c={pgbench['connections']:<3} {pgbench['rps']:>9,.0f} TPS    p50 "
          f"{pgbench['p50_ms']:6.1f} ms  p99 {pgbench['p99_ms']:7.1f} ms", flush=True)

    def measure(name: str, url: str, script: str, conns: int) -> Any:
        meter = CpuMeter({})
        meter.start()
        summary = runner.median(name, url, script, conns)
        summary["cpu"] = meter.stop(summary["requests"])
        return summary

    http = measure_http_ceilings(measure, [args.connections, args.p99_connections])  # type: ignore[arg-type]
    return {"pgbench": pgbench, **http}


def prepare(stack: stack_mod.BenchStack, work: Path) -> dict[str, Any]:
    base = stack.gateway_urls[0]
    merchants = {label: stack_mod.sign_up(base, label) for label in ("reads", "writes", "mixed", "soak")}
    started = time.monotonic()
    ids = stack_mod.seed_charges(base, merchants["reads"], SEED_CHARGES)
    (work / "charge_ids.txt").write_text("\n".join(ids) + "\n")
    print(f"prepared 4 merchants, {len(ids)} seed charges in {time.monotonic() - started:.1f} s", flush=True)
    return merchants


def measure_operations(runner: Runner, stack: stack_mod.BenchStack, merchants: dict[str, Any],
                       work: Path, args: argparse.Namespace) -> dict[str, Any]:
    url = stack.gateway_urls[0]
    pids = {name: process.pid for name, process in stack.named().items()}

    def env_for(merchant: str, extra: dict[str, str]) -> dict[str, str]:
        return {"BENCH_SECRET_KEY": merchants[merchant].secret_key,
                "BENCH_CHARGE_IDS": str(work / "charge_ids.txt"), **extra}

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
        c64 = runner.median(name, url, script, args.connections, env=env)
        cpu = meter.stop(c64["requests"])
        for profiler in profilers:
            profiler.wait(timeout=60)
        c32 = runner.median(name, url, script, args.p99_connections, env=env)
        out[name] = {"c64": c64, "c32": c32, "cpu": cpu}
        if name == "full_flow":
            out[name]["flows_per_second"] = round(c64["rps"] / 4, 1)
    return out


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
        subprocess.Popen([str(spy), "record", "--nonblocking", "-r", "100", "-d", str(max(1, seconds - 1)),
                          "-f", fmt, "-p", str(pid), "-o", str(out / f"{name}-{process}.{suffix}")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for process, pid in pids.items()
    ]


def mixed_run(runner: Runner, stack: stack_mod.BenchStack, merchant: Any, seconds: float,
              label: str) -> tuple[dict[str, Any], dict[str, Any], Path]:
    out_dir = Path(tempfile.mkdtemp(prefix=f"bench-{label}-"))
    env = {"BENCH_SECRET_KEY": merchant.secret_key, "BENCH_OUT_DIR": str(out_dir)}
    load = runner.once(label, stack.gateway_urls[0], "mixed.lua", runner.args.connections, seconds=seconds, env=env)
    return load.as_json(), env, out_dir


def settle_and_check(stack: stack_mod.BenchStack, out_dir: Path, merchant: Any) -> dict[str, Any]:
    """Give requests cut off by the end of the run a moment to finish, then read the database."""
    time.sleep(2.0)
    return consistency.check(stack.database_dsn, out_dir, merchant.merchant_id).as_json()


def soak(runner: Runner, stack: stack_mod.BenchStack, merchant: Any, seconds: int) -> dict[str, Any]:
    """Mixed traffic for `seconds`, sampling RSS every few seconds; flat = last within 10 % of the first
    sample taken after the first tenth of the soak (pools and caches have filled by then)."""
    out_dir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    env = {**runner.env, "BENCH_RUN_ID": f"soak{int(time.time())}", "BENCH_SECRET_KEY": merchant.secret_key,
           "BENCH_OUT_DIR": str(out_dir),
           "LUA_PATH": f"{ROOT / 'bench' / 'lua'}/?.lua;;"}
    command = ["wrk", f"-t{runner.threads}", f"-c{runner.args.connections}", f"-d{seconds}s", "--timeout=10s",
               "-s", str(ROOT / "bench" / "lua" / "mixed.lua"), stack.gateway_urls[0]]
    print(f"soak: {seconds} s of mixed traffic, RSS sampled every {SOAK_SAMPLE_SECONDS:.0f} s", flush=True)
    named = stack.named()
    samples: dict[str, list[tuple[float, int]]] = {name: [] for name in named}
    started = time.monotonic()
    wrk = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)
    while wrk.poll() is None:
        for name, series in samples.items():
            rss = rss_kib(named[name].pid)
            if rss is not None:
                series.append((round(time.monotonic() - started, 1), rss))
        time.sleep(SOAK_SAMPLE_SECONDS)
    stdout = wrk.stdout.read() if wrk.stdout else ""
    from wrk import parse_summary

    load = parse_summary("soak", runner.args.connections, stdout)
    rss: dict[str, Any] = {}
    for name, series in samples.items():
        settled = [kib for t, kib in series if t >= seconds / 10] or [kib for _, kib in series]
        first, last = settled[0], settled[-1]
        rss[name] = {
            "first_mib": round(first / 1024, 1), "last_mib": round(last / 1024, 1),
            "max_mib": round(max(k for _, k in series) / 1024, 1), "growth": round((last - first) / first, 4),
            "flat": abs(last - first) / first <= 0.10, "samples_kib": series,
        }
    return {"seconds": seconds, "load": load.as_json(), "rss": rss,
            "consistency": settle_and_check(stack, out_dir, merchant)}


def host_info() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "load_before": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "kernel": platform.release()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    subprocess.run(["bash", str(HERE / "ensure_wrk.sh")], check=True)
    result: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "host": host_info(),
        "topology": {"cores": args.cores, "gateways": args.gateways}, "seconds": args.seconds,
        "connections": args.connections, "p99_connections": args.p99_connections, "repeat": args.repeat,
    }
    runner = Runner(args)
    services, admin_dsn = stack_mod.start_services()
    try:
        if not (args.soak_only or args.no_ceilings):
            result["ceilings"] = measure_ceilings(runner, admin_dsn, args)
        print(f"starting {args.cores} core(s) + {args.gateways} gateway(s)", flush=True)
        stack = stack_mod.start_stack(services, admin_dsn, args.cores, args.gateways, log_level=args.log_level)
        result["stack"] = stack_mod.describe(stack)
        if len(stack.gateways) > 1:  # wrk threads are spread over the gateways (bench/lua/common.lua)
            runner.env["BENCH_TARGETS"] = ",".join(g.address for g in stack.gateways)
        try:
            with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
                work = Path(tmp)
                merchants = prepare(stack, work)
                if not args.soak_only:
                    result["operations"] = measure_operations(runner, stack, merchants, work, args)
                    if "ceilings" in result:
                        result["ratios"] = report.ratios(result["operations"], result["ceilings"])
                    print("mixed run and consistency pass:", flush=True)
                    load, _, out_dir = mixed_run(runner, stack, merchants["mixed"], max(args.seconds * 2, 10), "mixed")
                    result["mixed"] = {"load": load}
                    result["consistency"] = settle_and_check(stack, out_dir, merchants["mixed"])
                if args.soak > 0:
                    result["soak"] = soak(runner, stack, merchants["soak"], args.soak)
        finally:
            stack_mod.stop_stack(stack, keep_database=args.keep_database)
    finally:
        stack_mod.stop_services(services)
    path = report.write_json(result, report.SCRATCH_DIR if args.no_ceilings else report.RESULTS_DIR)
    report.print_summary(result)
    if "ratios" in result:
        report.update_benchmarks_md(result, path)
    if "soak" in result and not args.no_ceilings:
        report.update_soak_md(result, path)
    print(f"\nresults: {path.relative_to(ROOT)}" + ("; table: BENCHMARKS.md" if "ratios" in result else ""))
    failed = not result.get("consistency", {"ok": True})["ok"] or not result.get("soak", {}).get(
        "consistency", {"ok": True})["ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
