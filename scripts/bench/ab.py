"""Two versions of the code, measured back to back: req/s of stack A and stack B, alternating.

    python scripts/bench/ab.py --a /tmp/base --b . --rounds 3 --seconds 10 --connections 32,64
    python scripts/bench/ab.py --a /tmp/base --b . --op retrieve   # or list: over seeded charges
    python scripts/bench/ab.py --a . --b . --profile 10     # py-spy of each stack under create load
    python scripts/bench/ab.py --a /tmp/base --b . --naive  # the naive peer measured in every round too

Each of --a and --b is a source tree (a worktree, or `git archive <commit> | tar -x -C dir`); both stacks
(1 core + 1 gateway each, a database of their own) run at once, so the only thing that differs between
two consecutive wrk runs is the code. Rounds alternate the order (A B, B A, …) so a drift of the shared
machine's load falls on both sides. Prints each run, the medians and the ratio B ÷ A per connection count.
It also prints the CPU the stack's own processes (core + gateway) spent per request, which a machine
shared with other work disturbs much less than req/s. Noisy machines: compare the ratios within one
run, and read the spread of the runs beside them.

With --naive the naive peer of `make bench` (ceiling_servers.py naive-core + naive, on a database of its
own in the same PostgreSQL, as ceilings.measure_naive_peer runs it) takes its turn in every round as a
third side, N, and the ratios A ÷ N and B ÷ N are printed from the same rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

import psycopg  # noqa: E402
import stack as stack_mod  # noqa: E402
from ceilings import _free_port, ceiling_server  # noqa: E402
from pgbench_ceiling import _migrate  # noqa: E402
from process_stats import CpuMeter  # noqa: E402
from psycopg import sql  # noqa: E402
from wrk import run_wrk  # noqa: E402

from tests.support import processes  # noqa: E402

# Frames the profile summary groups by (a substring of py-spy's "function (file:line)" frames).
CATEGORIES = {
    "logging": ("logging/__init__.py", "logging_setup.py", "logging/handlers.py"),
    "rate limit (Redis)": ("rate_limit.py",),
    "redis client": ("redis/",),
    "gRPC": ("grpc/",),
    "psycopg": ("psycopg/",),
    "protobuf": ("protobuf/",),
    "json": ("json/",),
    "webhooks (dispatch, sender, queue)": ("webhooks/",),
    "h11": ("h11/",),
}

SCRIPTS = {"create": "create_charge.lua", "retrieve": "retrieve_charge.lua", "list": "list_charges.lua"}
"""The operations a run may drive (bench/lua), as `make bench` drives them."""
SEED_CHARGES = 1000


NATIVE = os.environ.get("AB_PROFILE_NATIVE") == "1"
"""py-spy --native: C and Cython frames too (gRPC's core, protobuf, uvloop), at a higher sampling cost."""


OPERATION = "create"
"""The operation every run drives (--op)."""
IDS_FILES: dict[str, Path] = {}
"""A merchant's (by secret key) seeded charge ids, for the read operations."""


def start(services: Any, admin_dsn: str, root: Path, label: str) -> tuple[Any, Any]:
    """A 1+1 stack of `root` and its merchant; for reads, the merchant's seeded charges' ids go in a file
    beside the stack (BENCH_CHARGE_IDS of the read scripts)."""
    processes.ROOT = root  # _spawn runs `python -m …` with this cwd and PYTHONPATH
    stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
    merchant = stack_mod.sign_up(stack.gateway_urls[0], f"ab{label}")
    if OPERATION != "create":
        ids = stack_mod.seed_charges(stack.gateway_urls[0], merchant, SEED_CHARGES)
        ids_file = Path(tempfile.mkdtemp(prefix=f"ab-{label}-")) / "charge_ids.txt"
        ids_file.write_text("\n".join(ids) + "\n")
        IDS_FILES[merchant.secret_key] = ids_file
    return stack, merchant


def once(label: str, stack: Any, merchant: Any, connections: int, seconds: float) -> tuple[float, float]:
    """req/s of one run and the CPU ms per request of the stack's core and gateway together."""
    meter = CpuMeter({"core": stack.cores[0].pid, "gateway": stack.gateways[0].pid})
    meter.start()
    env = {"BENCH_SECRET_KEY": merchant.secret_key, "BENCH_IDEMPOTENCY": "1", "BENCH_RUN_ID": "ab"}
    if OPERATION != "create":
        env["BENCH_CHARGE_IDS"] = str(IDS_FILES[merchant.secret_key])
    result = run_wrk(
        f"{OPERATION}-{label}",
        stack.gateway_urls[0],
        SCRIPTS[OPERATION],
        connections=connections,
        seconds=seconds,
        env=env,
    )
    cpu = meter.stop(result.requests)
    cpu_ms = cpu["core_cpu_ms_per_req"] + cpu["gateway_cpu_ms_per_req"]
    bad = result.non_2xx + result.socket_errors
    print(
        f"  {label} c={connections:<3} {result.rps:8.0f} req/s  p50 {result.p50_ms:6.1f}"
        f"  p99 {result.p99_ms:6.1f}"
        f"  cpu/req core {cpu['core_cpu_ms_per_req']:.3f} gw {cpu['gateway_cpu_ms_per_req']:.3f} ms"
        f"  machine busy {cpu['machine_busy']:.0%}"
        + (f"  ({bad} failed {result.error_codes})" if bad else ""),
        flush=True,
    )
    return result.rps, cpu_ms


@contextlib.contextmanager
def naive_peer(admin_dsn: str) -> Iterator[tuple[str, dict[str, int]]]:
    """The naive peer on a scratch database: its URL and the pids of its core and gateway."""
    name = f"pc_bench_naive_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = stack_mod.with_database(admin_dsn, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            _migrate(conn)
        grpc_port, http_port = _free_port(), _free_port()
        with (
            ceiling_server("naive-core", grpc_port, database_url=dsn) as core,
            ceiling_server("naive", http_port, f"127.0.0.1:{grpc_port}") as gateway,
        ):
            yield f"http://127.0.0.1:{http_port}", {"core": core.pid, "gateway": gateway.pid}
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def once_naive(url: str, pids: dict[str, int], connections: int, seconds: float) -> tuple[float, float]:
    """As `once`, for the naive peer (naive_create.lua: the same body, no key, no auth)."""
    meter = CpuMeter(pids)
    meter.start()
    result = run_wrk("naive", url, "naive_create.lua", connections=connections, seconds=seconds)
    cpu = meter.stop(result.requests)
    bad = result.non_2xx + result.socket_errors
    print(
        f"  N c={connections:<3} {result.rps:8.0f} req/s  p50 {result.p50_ms:6.1f}  p99 {result.p99_ms:6.1f}"
        f"  cpu/req core {cpu['core_cpu_ms_per_req']:.3f} gw {cpu['gateway_cpu_ms_per_req']:.3f} ms"
        f"  machine busy {cpu['machine_busy']:.0%}"
        + (f"  ({bad} failed {result.error_codes})" if bad else ""),
        flush=True,
    )
    return result.rps, cpu["core_cpu_ms_per_req"] + cpu["gateway_cpu_ms_per_req"]


def profile(label: str, stack: Any, merchant: Any, connections: int, seconds: int, out: Path) -> None:
    """py-spy (raw collapsed stacks) of the core and the gateway during one create run."""
    pids = {"core": stack.cores[0].pid, "gateway": stack.gateways[0].pid}
    profiled(label, pids, out, seconds, lambda: once(label, stack, merchant, connections, seconds + 1))


def profiled(label: str, pids: dict[str, int], out: Path, seconds: int, load: Any) -> None:
    """py-spy of each of `pids` while `load()` runs; prints each one's summary."""
    spy = Path(sys.executable).with_name("py-spy")
    spies = {
        name: subprocess.Popen(
            [
                str(spy),
                "record",
                *(["--native"] if NATIVE else ["--nonblocking"]),  # native stacks stop the process
                "-r",
                "100",
                "-d",
                str(seconds),
                "-f",
                "raw",
                "-o",
                str(out / f"{label}-{name}.txt"),
                "--pid",
                str(pid),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for name, pid in pids.items()
    }
    load()
    for name, spy_process in spies.items():
        spy_process.wait(timeout=60)
        print(f"profile {label} {name}:\n{summarize(out / f'{label}-{name}.txt')}", flush=True)


def summarize(path: Path, top: int = 12) -> str:
    """Inclusive share of each category and the top self frames, in % of the samples."""
    inclusive: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack_text, _, count_text = line.rpartition(" ")
        count = int(count_text)
        total += count
        frames = stack_text.split(";")
        self_time[frames[-1]] += count
        for category, needles in CATEGORIES.items():
            if any(n in stack_text for n in needles):
                inclusive[category] += count
    if not total:
        return "  (no samples)"
    lines = [f"  {total} samples; inclusive:"]
    lines += [f"    {c:<20} {100 * n / total:5.1f} %" for c, n in inclusive.most_common()]
    lines.append("  top self frames:")
    lines += [f"    {100 * n / total:5.1f} %  {f[:110]}" for f, n in self_time.most_common(top)]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="source tree of the code without the change")
    parser.add_argument("--b", type=Path, required=True, help="source tree of the code with it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", default="32,64")
    parser.add_argument("--profile", type=int, default=0, help="seconds of py-spy per stack (0: none)")
    parser.add_argument("--naive", action="store_true", help="the naive peer as a third side in each round")
    parser.add_argument("--op", choices=sorted(SCRIPTS), default="create", help="the operation driven")
    args = parser.parse_args()
    global OPERATION
    OPERATION = args.op
    if args.naive and args.op != "create":
        parser.error("the naive peer only creates: --naive needs --op create")
    levels = [int(c) for c in args.connections.split(",")]
    services, admin_dsn = stack_mod.start_services()
    stacks: dict[str, tuple[Any, Any]] = {}
    peer = contextlib.ExitStack()
    naive: tuple[str, dict[str, int]] | None = None
    try:
        for label, root in (("A", args.a), ("B", args.b)):
            stacks[label] = start(services, admin_dsn, root.resolve(), label)
        if args.naive:
            naive = peer.enter_context(naive_peer(admin_dsn))
            once_naive(*naive, levels[-1], 5)
        for label, (stack, merchant) in stacks.items():
            once(f"{label} warm-up", stack, merchant, levels[-1], 5)
        if args.profile:
            out = Path(tempfile.mkdtemp(prefix="ab-profile-"))
            for label, (stack, merchant) in stacks.items():
                profile(label, stack, merchant, levels[0], args.profile, out)
            if naive is not None:
                url, pids = naive
                seconds = args.profile + 1
                profiled("N", pids, out, args.profile, lambda: once_naive(url, pids, levels[0], seconds))
        results: dict[str, Any] = {}
        for connections in levels if args.rounds else []:
            sides = ("A", "B", "N") if naive is not None else ("A", "B")
            rps: dict[str, list[float]] = {side: [] for side in sides}
            cpu: dict[str, list[float]] = {side: [] for side in sides}
            for n in range(args.rounds):
                # A B (N), then (N) B A, …: each side's runs spread over the rounds alike.
                for label in sides if n % 2 == 0 else sides[::-1]:
                    if label == "N":
                        assert naive is not None
                        run_rps, run_cpu = once_naive(*naive, connections, args.seconds)
                    else:
                        stack, merchant = stacks[label]
                        run_rps, run_cpu = once(label, stack, merchant, connections, args.seconds)
                    rps[label].append(run_rps)
                    cpu[label].append(run_cpu)
            a, b = statistics.median(rps["A"]), statistics.median(rps["B"])
            cpu_a, cpu_b = statistics.median(cpu["A"]), statistics.median(cpu["B"])
            results[f"c{connections}"] = {
                "A": [round(x) for x in rps["A"]],
                "B": [round(x) for x in rps["B"]],
                "median_A": round(a),
                "median_B": round(b),
                "ratio": round(b / a, 3),
                "cpu_ms_A": [round(x, 3) for x in cpu["A"]],
                "cpu_ms_B": [round(x, 3) for x in cpu["B"]],
                "cpu_ratio": round(cpu_b / cpu_a, 3),
            }
            print(
                f"c={connections}: A {a:.0f}  B {b:.0f}  B÷A {b / a:.3f};  CPU ms/req A {cpu_a:.3f}  "
                f"B {cpu_b:.3f}  B÷A {cpu_b / cpu_a:.3f}",
                flush=True,
            )
            if naive is not None:
                n_rps, n_cpu = statistics.median(rps["N"]), statistics.median(cpu["N"])
                results[f"c{connections}"].update(
                    {
                        "N": [round(x) for x in rps["N"]],
                        "median_N": round(n_rps),
                        "cpu_ms_N": [round(x, 3) for x in cpu["N"]],
                        "ratio_A_to_naive": round(a / n_rps, 3),
                        "ratio_B_to_naive": round(b / n_rps, 3),
                    }
                )
                print(
                    f"c={connections}: naive {n_rps:.0f}  A÷N {a / n_rps:.3f}  B÷N {b / n_rps:.3f};  "
                    f"CPU ms/req N {n_cpu:.3f}",
                    flush=True,
                )
        print("AB_JSON " + json.dumps({"load_after": os.getloadavg(), **results}), flush=True)
    finally:
        peer.close()
        for stack, _ in stacks.values():
            stack_mod.stop_stack(stack, keep_database=False)
        stack_mod.stop_services(services)
    return 0


if __name__ == "__main__":
    sys.exit(main())
