"""Runs wrk with one of bench/lua/*.lua and reads back the summary its done() prints as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LUA_DIR = ROOT / "bench" / "lua"
MARKER = "BENCH_JSON "


@dataclass(frozen=True, slots=True)
class LoadResult:
    """One wrk run: throughput, latency percentiles (ms) and what went wrong."""

    name: str
    connections: int
    seconds: float
    requests: int
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    non_2xx: int
    socket_errors: int
    error_codes: dict[str, int] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    first_error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connections": self.connections,
            "seconds": round(self.seconds, 2),
            "requests": self.requests,
            "rps": round(self.rps, 1),
            "p50_ms": round(self.p50_ms, 2),
            "p90_ms": round(self.p90_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "max_ms": round(self.max_ms, 2),
            "non_2xx": self.non_2xx,
            "socket_errors": self.socket_errors,
            "error_codes": self.error_codes,
            "counters": self.counters,
            "first_error": self.first_error,
        }


def parse_summary(name: str, connections: int, stdout: str) -> LoadResult:
    """The JSON line of common.lua's done(); wrk's own text is kept only for error messages."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith(MARKER)), None)
    if line is None:
        raise RuntimeError(f"wrk printed no summary for {name}:\n{stdout[-2000:]}")
    data = json.loads(line[len(MARKER) :])
    seconds = data["duration_us"] / 1e6
    errors = data.get("errors") or {}
    latency = data["latency_us"]
    return LoadResult(
        name=name,
        connections=connections,
        seconds=seconds,
        requests=int(data["requests"]),
        rps=data["requests"] / seconds if seconds else 0.0,
        p50_ms=latency["p50"] / 1000,
        p90_ms=latency["p90"] / 1000,
        p99_ms=latency["p99"] / 1000,
        max_ms=latency["max"] / 1000,
        non_2xx=int(errors.get("status", 0)),
        socket_errors=int(sum(errors.get(k, 0) for k in ("connect", "read", "write", "timeout"))),
        error_codes={k: int(v) for k, v in (data.get("error_codes") or {}).items()},
        counters={k: int(v) for k, v in (data.get("counters") or {}).items()},
        first_error=data.get("first_error"),
    )


def run_wrk(
    name: str,
    url: str,
    script: str,
    *,
    connections: int,
    seconds: float,
    threads: int = 2,
    env: dict[str, str] | None = None,
    timeout_s: int = 10,
) -> LoadResult:
    """`wrk -t threads -c connections -d seconds --latency -s bench/lua/<script> url`."""
    threads = max(1, min(threads, connections))
    command = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
        f"--timeout={timeout_s}s", "-s", str(LUA_DIR / script), url,
    ]  # fmt: skip
    # A run id of its own per invocation: idempotency keys of two runs must never meet.
    run_id = f"{(env or {}).get('BENCH_RUN_ID', 'r')}-{uuid.uuid4().hex[:8]}"
    full_env = {**os.environ, **(env or {}), "BENCH_RUN_ID": run_id, "LUA_PATH": f"{LUA_DIR}/?.lua;;"}
    done = subprocess.run(
        command, env=full_env, capture_output=True, text=True, timeout=seconds + 120, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed for {name} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return parse_summary(name, connections, done.stdout)
