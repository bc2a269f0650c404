"""`bench.py --login-flood`: create-charge p99 with and without a login flood on the same stack.

The issue's bar: p99 under the flood within 2x of p99 without one. The flood (bench/lua/login_flood.lua)
is wrk posting wrong passwords for fresh e-mails, so the per-account throttle never stops it and every
request reaches the core's password KDF; the bounded KDF pool (LOGIN_KDF_WORKERS, LOGIN_KDF_QUEUE) is
what keeps the charge path responsive. The create runs use --p99-connections, the flood its own count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wrk import LoadResult, run_wrk

RAMP_SECONDS = 2.0  # the flood runs this long before, and after, the measured create runs


def measure_login_flood(
    measure_create: Callable[[], dict[str, Any]],
    url: str,
    *,
    seconds: int,
    repeat: int,
    flood_connections: int,
    env: dict[str, str],
) -> dict[str, Any]:
    """`measure_create` runs the create operation (median of `repeat` runs) and returns its summary."""
    print("login flood: create-charge p99 without, then with, a login flood", flush=True)
    quiet = measure_create()
    flood_seconds = round(seconds * repeat + 2 * RAMP_SECONDS + 1)
    with ThreadPoolExecutor(max_workers=1) as pool:
        flooding = pool.submit(
            run_wrk,
            "login-flood",
            url,
            "login_flood.lua",
            connections=flood_connections,
            seconds=flood_seconds,
            threads=1,
            env=env,
        )
        time.sleep(RAMP_SECONDS)
        flooded = measure_create()
        flood: LoadResult = flooding.result()
    ratio = flooded["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else float("inf")
    out = {
        "create_p99_ms_without": quiet["p99_ms"],
        "create_p99_ms_with": flooded["p99_ms"],
        "p99_ratio": round(ratio, 2),
        "create_rps_without": quiet["rps"],
        "create_rps_with": flooded["rps"],
        "within_2x": ratio <= 2.0,
        "flood": flood.as_json(),
        "flood_connections": flood_connections,
    }
    counters = flood.counters
    print(
        f"  create p99 {quiet['p99_ms']:.1f} ms without, {flooded['p99_ms']:.1f} ms with the flood: "
        f"x{ratio:.2f} ({'within' if ratio <= 2.0 else 'beyond'} 2x); flood {flood.rps:,.0f} logins/s "
        f"(hashed {counters.get('hashed', 0)}, shed 503 {counters.get('shed', 0)}, "
        f"throttled {counters.get('throttled', 0)})",
        flush=True,
    )
    return out
