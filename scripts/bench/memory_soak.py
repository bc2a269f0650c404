"""The mixed run with its consistency pass, and the memory soak: mixed traffic for minutes, resident
memory sampled as it runs."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import consistency
import soak_tables
import stack as stack_mod
from process_stats import rss_kib
from runner import Runner
from wrk import LUA_DIR, parse_summary

SOAK_SAMPLE_SECONDS = 5.0


def mixed_run(
    runner: Runner, stack: stack_mod.BenchStack, merchant: Any, seconds: float, label: str
) -> tuple[dict[str, Any], Path]:
    """Creates, payments, captures, refunds, voids and reads with retries and races (bench/lua/mixed.lua);
    each wrk thread writes what it saw succeed to the returned folder for the consistency pass."""
    out_dir = Path(tempfile.mkdtemp(prefix=f"bench-{label}-"))
    env = {"BENCH_SECRET_KEY": merchant.secret_key, "BENCH_OUT_DIR": str(out_dir)}
    load = runner.once(
        label, stack.gateway_urls[0], "mixed.lua", runner.args.connections, seconds=seconds, env=env
    )
    return load.as_json(), out_dir


def settle_and_check(stack: stack_mod.BenchStack, out_dir: Path, merchant: Any) -> dict[str, Any]:
    """Give requests cut off by the end of the run a moment to finish, then read the database."""
    time.sleep(2.0)
    return consistency.check(stack.database_dsn, out_dir, merchant.merchant_id).as_json()


def soak(runner: Runner, stack: stack_mod.BenchStack, merchant: Any, seconds: int) -> dict[str, Any]:
    """Mixed traffic for `seconds`, sampling RSS every few seconds; flat = last within 10 % of the first
    sample taken after the first tenth of the soak (pools and caches have filled by then). With
    --soak-webhooks every event is also delivered to a local sink."""
    with contextlib.ExitStack() as sink:
        if runner.args.soak_webhooks:
            url = sink.enter_context(soak_tables.webhook_sink())
            soak_tables.register_endpoint(stack.gateway_urls[0], stack_mod.API, merchant.secret_key, url)
        return _soak(runner, stack, merchant, seconds)


def _soak(runner: Runner, stack: stack_mod.BenchStack, merchant: Any, seconds: int) -> dict[str, Any]:
    out_dir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    env = {
        **runner.env,
        "BENCH_RUN_ID": f"soak{int(time.time())}",
        "BENCH_SECRET_KEY": merchant.secret_key,
        "BENCH_OUT_DIR": str(out_dir),
        "LUA_PATH": f"{LUA_DIR}/?.lua;;",
    }
    command = [
        "wrk",
        f"-t{runner.threads}",
        f"-c{runner.args.connections}",
        f"-d{seconds}s",
        "--timeout=10s",
        "-s",
        str(LUA_DIR / "mixed.lua"),
        stack.gateway_urls[0],
    ]
    print(f"soak: {seconds} s of mixed traffic, RSS sampled every {SOAK_SAMPLE_SECONDS:.0f} s", flush=True)
    named = stack.named()
    samples: dict[str, list[tuple[float, int]]] = {name: [] for name in named}
    tables: list[tuple[float, dict[str, int]]] = []
    started = time.monotonic()
    wrk = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)
    while wrk.poll() is None:
        for name, series in samples.items():
            resident = rss_kib(named[name].pid)
            if resident is not None:
                series.append((round(time.monotonic() - started, 1), resident))
        rows = soak_tables.table_rows(stack.database_dsn)
        if rows is not None:
            tables.append((round(time.monotonic() - started, 1), rows))
        time.sleep(SOAK_SAMPLE_SECONDS)
    stdout = wrk.stdout.read() if wrk.stdout else ""
    load = parse_summary("soak", runner.args.connections, stdout)
    return {
        "seconds": seconds,
        "load": load.as_json(),
        "rss": _resident_growth(samples, seconds),
        "tables": soak_tables.summarize(tables, seconds),
        "consistency": soak_tables.without_purged_events(settle_and_check(stack, out_dir, merchant)),
    }


def _resident_growth(samples: dict[str, list[tuple[float, int]]], seconds: int) -> dict[str, Any]:
    rss: dict[str, Any] = {}
    for name, series in samples.items():
        settled = [kib for t, kib in series if t >= seconds / 10] or [kib for _, kib in series]
        first, last = settled[0], settled[-1]
        rss[name] = {
            "first_mib": round(first / 1024, 1),
            "last_mib": round(last / 1024, 1),
            "max_mib": round(max(k for _, k in series) / 1024, 1),
            "growth": round((last - first) / first, 4),
            "flat": abs(last - first) / first <= 0.10,
            "samples_kib": series,
        }
    return rss
