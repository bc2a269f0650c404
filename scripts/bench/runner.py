"""wrk runs with repeats: one measured figure is the median of `repeat` runs, each run kept for the record."""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from wrk import LoadResult, run_wrk


class Runner:
    """Runs wrk against one target with the arguments every run of a bench shares."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.threads = max(2, args.gateways)
        self.env: dict[str, str] = {"BENCH_RUN_ID": f"r{int(time.time())}"}

    def once(
        self,
        name: str,
        url: str,
        script: str,
        connections: int,
        seconds: float | None = None,
        env: dict[str, str] | None = None,
    ) -> LoadResult:
        result = run_wrk(
            name,
            url,
            script,
            connections=connections,
            seconds=seconds or self.args.seconds,
            threads=self.threads,
            env={**self.env, **(env or {})},
        )
        bad = result.non_2xx + result.socket_errors
        print(
            f"  {name:<14} c={connections:<3} {result.rps:>9,.0f} req/s  p50 {result.p50_ms:6.1f} ms  "
            f"p99 {result.p99_ms:7.1f} ms  max {result.max_ms:7.1f} ms"
            + (f"  ({bad} failed: {result.error_codes})" if bad else ""),
            flush=True,
        )
        return result

    def median(
        self, name: str, url: str, script: str, connections: int, env: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """`repeat` runs; each figure is the median over them (runs are kept for the record)."""
        runs = [self.once(name, url, script, connections, env=env) for _ in range(self.args.repeat)]
        return summarize(runs)


def summarize(runs: list[LoadResult]) -> dict[str, Any]:
    """Medians of the runs' figures, plus the worst single request of any run: "no request over 1 s in
    any run" is a bound on every run, which a median would hide."""
    out = {**runs[0].as_json()}
    for key in ("rps", "p50_ms", "p90_ms", "p99_ms", "max_ms"):
        out[key] = round(statistics.median(getattr(r, key) for r in runs), 2)
    out["worst_max_ms"] = round(max(r.max_ms for r in runs), 2)
    out["requests"] = sum(r.requests for r in runs)
    out["non_2xx"] = sum(r.non_2xx for r in runs)
    out["socket_errors"] = sum(r.socket_errors for r in runs)
    out["runs_rps"] = [round(r.rps, 1) for r in runs]
    out["runs_p99_ms"] = [round(r.p99_ms, 2) for r in runs]
    out["runs_max_ms"] = [round(r.max_ms, 2) for r in runs]
    return out
