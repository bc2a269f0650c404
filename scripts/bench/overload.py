"""Overload: creates offered at twice the sustained rate, open loop; goodput, shed share, admitted p99.

    python scripts/bench/overload.py --rate 1600 --seconds 15   # against a stack of its own
    python scripts/bench/overload.py --compare 3 --seconds 10    # admission control off against on
    python scripts/bench/overload.py --trees /tmp/base . --rounds 3   # two source trees, back to back
    python scripts/bench/overload.py --isolated 3 --seconds 10   # stack on one CPU, clients on the other

The requests come from open_loop.py: open loop, as clients send them (wrk's closed loop slows down with
the server, so an overload never builds up). Reported: goodput (2xx answers per second), requests shed
(503) and whether each carried Retry-After, the latency of admitted and shed answers, anything else, the
connections opened and the machine's accept-queue overflows and SYNs sent again: when the server's loop
falls behind while the generator opens hundreds of connections, the handshakes that find the queue full
are retried by the client's kernel after 1 s (then 3 s, 7 s), and such a request's answer — a refusal
too — shows up a second or more late (BENCHMARKS.md, "Speed, round 5"). targets.py judges goodput
against the sustained rate and the admitted p99.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

from open_loop import offer  # noqa: E402 (scripts/bench on the path first)


def measure(
    url: str, secret_key: str, sustained_rps: float, seconds: float, factor: float = 2.0
) -> dict[str, Any]:
    """The overload step of `make bench`: `factor` × the sustained create rate, and the sustained rate it
    was offered against (targets.py compares the goodput with it)."""
    rate = round(sustained_rps * factor)
    print(
        f"overload: {rate} creates/s offered ({factor:g} × {sustained_rps:,.0f}) for {seconds:g} s",
        flush=True,
    )
    result = offer(url, secret_key, rate=rate, seconds=seconds)
    result["sustained_rps"] = round(sustained_rps, 1)
    result["factor"] = factor
    admitted, goodput = result["admitted_ms"], result["goodput_rps"]
    print(
        f"  goodput {goodput:,.0f}/s ({goodput / sustained_rps:.2f} × sustained), shed "
        f"{result['shed_share'] or 0:.0%} (p99 {result['shed_ms']['p99']} ms), admitted p50 "
        f"{admitted['p50']} ms p99 {admitted['p99']} ms, other {result['other']}, "
        f"late starts {result['late_starts']}, {result['connections_opened']} connections opened, "
        f"machine: {result.get('machine_listen_overflows', '–')} accept-queue overflows, "
        f"{result.get('machine_syn_retransmits', '–')} SYNs sent again",
        flush=True,
    )
    return result


def table(result: dict[str, Any]) -> list[str]:
    """Markdown lines: the overload step and what it was offered against."""
    admitted, shed = result["admitted_ms"], result["shed_ms"]
    other = ", ".join(f"{k} {v}" for k, v in sorted(result["other"].items())) or "none"
    ratio = result["goodput_rps"] / result["sustained_rps"] if result.get("sustained_rps") else None
    return [
        f"Overload: {result['rate']:,.0f} creates/s offered open loop for {result['seconds']:g} s "
        f"({result.get('factor', 2):g} × the sustained {result.get('sustained_rps', 0):,.0f}/s; "
        f"{result['late_starts']} started late by the generator), up to {result['peak_connections']} "
        f"connections ({result.get('connections_opened', '–')} opened; on the machine meanwhile "
        f"{result.get('machine_listen_overflows', '–')} accept-queue overflows).",
        "",
        "| goodput 2xx/s | ÷ sustained | shed (503) | 503 without Retry-After | admitted p50 ms "
        "| admitted p99 ms | 503 p99 ms | other |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| {result['goodput_rps']:,.0f} | {'–' if ratio is None else f'{ratio:.2f}'} | "
        f"{result['shed_share'] or 0:.0%} | {result['shed_without_retry_after']} | {admitted['p50']} | "
        f"{admitted['p99']} | {shed['p99'] if shed['p99'] is not None else '–'} | {other} |",
    ]


NO_BOUNDS = {"GATEWAY_MAX_CORE_CALLS": "0", "CORE_MAX_IN_FLIGHT_RPCS": "0"}


def _shed_counts(url: str) -> dict[str, float]:
    """The gateway's shed counters so far, by where (its /metrics answers loopback)."""
    import httpx

    counts: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith("gateway_requests_shed_total{"):
            where = line.split('where="')[1].split('"')[0]
            counts[where] = float(line.rsplit(" ", 1)[1])
    return counts


def _sustained(stack: Any, secret_key: str, run_id: str) -> tuple[float, dict[str, Any]]:
    """The stack's sustained create rate (wrk, closed loop, 64 connections, 10 s) and its CPU per create."""
    from process_stats import CpuMeter
    from wrk import run_wrk

    env = {"BENCH_SECRET_KEY": secret_key, "BENCH_IDEMPOTENCY": "1", "BENCH_RUN_ID": run_id}
    meter = CpuMeter({name: p.pid for name, p in stack.named().items()})
    meter.start()
    wrk = run_wrk("create", stack.gateway_urls[0], "create_charge.lua", connections=64, seconds=10, env=env)
    return wrk.rps, meter.stop(wrk.requests)


def _overloaded(
    stack: Any, secret_key: str, sustained_rps: float, seconds: float, factor: float
) -> dict[str, Any]:
    """`measure` against the stack, with its CPU per offered request and its refusals by where meanwhile."""
    from process_stats import CpuMeter

    url = stack.gateway_urls[0]
    shed_before = _shed_counts(url)
    meter = CpuMeter({name: p.pid for name, p in stack.named().items()})
    meter.start()
    result = measure(url, secret_key, sustained_rps, seconds, factor)
    result["cpu"] = meter.stop(result["offered"])
    shed_after = _shed_counts(url)
    result["shed_by_where"] = {k: v - shed_before.get(k, 0) for k, v in shed_after.items()}
    return result


def compare(rounds: int, seconds: float, factor: float) -> list[dict[str, Any]]:
    """Admission control off and on, back to back: two 1+1 stacks side by side (one started with every
    bound at 0, the state before admission control), each round measuring the sustained create rate of
    each (wrk, 64 connections, 10 s) and then offering each `factor` × its own rate, alternating, so that
    the machine's drift falls on both alike."""
    import stack as stack_mod

    services, admin_dsn = stack_mod.start_services()
    out: list[dict[str, Any]] = []
    try:
        with contextlib.ExitStack() as cleanup:
            stacks = {}
            for mode, env in (("off", NO_BOUNDS), ("on", {})):
                saved = {k: os.environ.get(k) for k in NO_BOUNDS}
                os.environ.update(env)
                try:
                    stacks[mode] = stack_mod.start_stack(services, admin_dsn, 1, 1)
                finally:
                    for k, v in saved.items():
                        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
                cleanup.callback(stack_mod.stop_stack, stacks[mode], keep_database=False)
            keys = {
                mode: stack_mod.sign_up(s.gateway_urls[0], "overload").secret_key
                for mode, s in stacks.items()
            }
            for n in range(rounds):
                for mode, stack in stacks.items():
                    rps, cpu = _sustained(stack, keys[mode], f"cmp{n}")
                    print(f"round {n + 1} {mode}: sustained {rps:,.0f}/s (load {os.getloadavg()[0]:.1f})")
                    result = _overloaded(stack, keys[mode], rps, seconds, factor)
                    print(
                        f"  cpu per offered request {result['cpu']}, shed by where {result['shed_by_where']}"
                    )
                    out.append({"round": n + 1, "admission": mode, "sustained_cpu": cpu, **result})
                    time.sleep(3)  # the queue of the run before drained (off: it may still be working)
    finally:
        stack_mod.stop_services(services)
    return out


def versions(trees: list[Path], rounds: int, seconds: float, factor: float) -> list[dict[str, Any]]:
    """Source trees (a worktree, or `git archive <commit> | tar -x -C dir`) back to back: a 1+1 stack of
    each side by side, and in each round every stack's sustained create rate (wrk, 64 connections, 10 s)
    and then `factor` × the round's mean of them offered to each in turn, the order reversed every round
    so the machine's drift falls on all alike. The same rate for all makes the goodputs of a round
    comparable; each is given against its own sustained rate and the round's mean."""
    import stack as stack_mod

    from tests.support import processes

    services, admin_dsn = stack_mod.start_services()
    out: list[dict[str, Any]] = []
    try:
        with contextlib.ExitStack() as cleanup:
            stacks = []
            for n, tree in enumerate(trees):
                processes.ROOT = tree.resolve()  # _spawn runs `python -m …` with this cwd and PYTHONPATH
                stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
                cleanup.callback(stack_mod.stop_stack, stack, keep_database=False)
                stacks.append(
                    (f"{n + 1}:{tree}", stack, stack_mod.sign_up(stack.gateway_urls[0], "overload"))
                )
            for n in range(rounds):
                order = stacks if n % 2 == 0 else stacks[::-1]
                sustained: dict[str, float] = {}
                for label, stack, merchant in order:
                    sustained[label], _ = _sustained(stack, merchant.secret_key, f"v{n}")
                    print(
                        f"round {n + 1} {label}: sustained {sustained[label]:,.0f}/s "
                        f"(load {os.getloadavg()[0]:.1f})"
                    )
                mean = sum(sustained.values()) / len(sustained)
                for label, stack, merchant in order:
                    load = os.getloadavg()[0]
                    result = _overloaded(stack, merchant.secret_key, mean, seconds, factor)
                    result.update(
                        round=n + 1, version=label, own_sustained_rps=round(sustained[label], 1), load=load
                    )
                    own = result["goodput_rps"] / sustained[label]
                    print(
                        f"  {label}: ÷ own sustained {own:.2f}, cpu per offered request {result['cpu']}, "
                        f"shed by where {result['shed_by_where']}, load {load:.1f}"
                    )
                    out.append(result)
                    time.sleep(3)  # the queue of the run before drained
    finally:
        stack_mod.stop_services(services)
    return out


STACK_CPU, CLIENT_CPU = 1, 0
"""`--isolated`: the CPU the stack (PostgreSQL, Redis, core, gateway) runs on, and the one the clients do."""


def isolated(rounds: int, seconds: float, factor: float) -> list[dict[str, Any]]:
    """The overload step with the clients off the stack's CPU: the embedded servers, the core and the
    gateway pinned to one CPU (every process they start inherits it), this process — the open-loop
    generator — and wrk to the other. On two shared cores the generator takes CPU from the stack it
    overloads, so `make bench`'s goodput ratio measures the generator too; here the stack's CPU is its
    own, as it is in front of real clients, and the ratio is what admission control achieves. Each round:
    the sustained rate (wrk, 64 connections, 10 s), then `factor` × it, open loop."""
    import stack as stack_mod

    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("--isolated needs two CPUs and sched_setaffinity (Linux)")
    os.sched_setaffinity(0, {STACK_CPU})  # the servers and processes started now inherit it
    services, admin_dsn = stack_mod.start_services()
    out: list[dict[str, Any]] = []
    try:
        stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
        with contextlib.ExitStack() as cleanup:
            cleanup.callback(stack_mod.stop_stack, stack, keep_database=False)
            os.sched_setaffinity(0, {CLIENT_CPU})  # this process and the wrk runs it starts
            merchant = stack_mod.sign_up(stack.gateway_urls[0], "overload")
            for n in range(rounds):
                rps, sustained_cpu = _sustained(stack, merchant.secret_key, f"i{n}")
                print(f"round {n + 1}: sustained {rps:,.0f}/s, stack cpu per create {sustained_cpu}")
                result = _overloaded(stack, merchant.secret_key, rps, seconds, factor)
                result.update(round=n + 1, sustained_cpu=sustained_cpu, stack_cpu=STACK_CPU)
                out.append(result)
                time.sleep(3)  # the queue of the run before drained
    finally:
        stack_mod.stop_services(services)
    return out


def _reported(
    rows: list[dict[str, Any]], path: Path | None, heading: Callable[[dict[str, Any]], str] | None = None
) -> int:
    """Writes `rows` to `path` when given, and prints each round's table under its `heading`."""
    if path:
        path.write_text(json.dumps(rows, indent=2) + "\n")
    if heading is not None:
        for row in rows:
            print(heading(row))
            print("\n".join(table(row)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rate", type=float, help="creates per second offered (not with --compare)")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--url", help="a running gateway (with --secret-key); default: a stack of its own")
    parser.add_argument("--secret-key")
    parser.add_argument(
        "--compare", type=int, metavar="ROUNDS", help="admission control off against on, ROUNDS rounds"
    )
    parser.add_argument(
        "--factor", type=float, default=2.0, help="with --compare or --trees: × the sustained rate"
    )
    parser.add_argument(
        "--trees", type=Path, nargs="+", metavar="TREE", help="source trees measured back to back"
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --trees")
    parser.add_argument(
        "--isolated",
        type=int,
        metavar="ROUNDS",
        help="the stack on one CPU and the clients on the other, ROUNDS rounds",
    )
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    if args.trees:
        return _reported(versions(args.trees, args.rounds, args.seconds, args.factor), args.json)
    if args.isolated:
        rows = isolated(args.isolated, args.seconds, args.factor)
        return _reported(
            rows, args.json, lambda row: f"round {row['round']}, the stack on CPU {STACK_CPU} alone:"
        )
    if args.compare:
        rows = compare(args.compare, args.seconds, args.factor)
        return _reported(rows, args.json, lambda row: f"round {row['round']} admission {row['admission']}:")
    if args.url:
        print(json.dumps(offer(args.url, args.secret_key, rate=args.rate, seconds=args.seconds), indent=2))
        return 0
    import stack as stack_mod

    services, admin_dsn = stack_mod.start_services()
    try:
        stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
        with contextlib.ExitStack() as cleanup:
            cleanup.callback(stack_mod.stop_stack, stack, keep_database=False)
            merchant = stack_mod.sign_up(stack.gateway_urls[0], "overload")
            result = offer(stack.gateway_urls[0], merchant.secret_key, rate=args.rate, seconds=args.seconds)
    finally:
        stack_mod.stop_services(services)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
