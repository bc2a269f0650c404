"""Starts the ceiling servers of ceiling_servers.py one at a time and measures them with wrk."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from pgbench_ceiling import _migrate
from psycopg import sql
from wrk import LoadResult

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def ceiling_server(
    kind: str, port: int, grpc_target: str | None = None, database_url: str | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """One ceiling server process, stopped (by its own pid) when the block ends."""
    command = [sys.executable, str(HERE / "ceiling_servers.py"), kind, "--port", str(port)]
    if grpc_target:
        command += ["--grpc-target", grpc_target]
    if database_url:
        command += ["--database-url", database_url]
    pythonpath = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "protos"), os.environ.get("PYTHONPATH")) if p
    )
    log = tempfile.NamedTemporaryFile(prefix=f"bench-{kind}-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": pythonpath},
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"ceiling server {kind} did not start; log {log.name}:\n"
                    + Path(log.name).read_text()[-2000:]
                )
            time.sleep(0.1)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


Measure = Callable[[str, str, str, int], LoadResult]
"""(name, url, lua script, connections) -> one measured run (repeats and medians are the caller's)."""


def measure_http_ceilings(measure: Measure, connections: list[int]) -> dict[str, dict[str, LoadResult]]:
    """Bare Sanic and Sanic → one gRPC unary call, each at every connection count."""
    out: dict[str, dict[str, LoadResult]] = {"bare_sanic": {}, "two_hop": {}}
    port = _free_port()
    with ceiling_server("sanic", port):
        for conns in connections:
            out["bare_sanic"][f"c{conns}"] = measure(
                "bare_sanic", f"http://127.0.0.1:{port}", "bare_post.lua", conns
            )
    grpc_port, http_port = _free_port(), _free_port()
    with ceiling_server("grpc", grpc_port), ceiling_server("twohop", http_port, f"127.0.0.1:{grpc_port}"):
        for conns in connections:
            out["two_hop"][f"c{conns}"] = measure(
                "two_hop", f"http://127.0.0.1:{http_port}", "bare_post.lua", conns
            )
    return out


def _row_counts(dsn: str) -> tuple[int, int]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM charges),"
            " (SELECT count(*) FROM events WHERE type = 'charge.created')"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _answered_2xx(result: object) -> int | None:
    """Requests answered 2xx, from a LoadResult or a summary dict carrying the same fields."""
    if isinstance(result, dict):
        requests, non_2xx = result.get("requests"), result.get("non_2xx")
    else:
        requests, non_2xx = getattr(result, "requests", None), getattr(result, "non_2xx", None)
    if not isinstance(requests, int) or not isinstance(non_2xx, int):
        return None
    return requests - non_2xx


def measure_naive_peer(
    measure: Measure, connections: list[int], admin_dsn: str, database_dsn_for: Callable[[str], str]
) -> dict[str, LoadResult]:
    """The naive peer (ceiling_servers.py kinds naive-core, naive) at every connection count, against
    a scratch database dropped afterwards.

    After each run the rows are counted: a charge and its event for every 201 wrk saw (a few more may
    land from requests still in flight when wrk stopped), or the run is refused as not measuring writes.
    """
    name = f"pc_bench_naive_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = database_dsn_for(name)
    out: dict[str, LoadResult] = {}
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            _migrate(conn)
        grpc_port, http_port = _free_port(), _free_port()
        with (
            ceiling_server("naive-core", grpc_port, database_url=dsn),
            ceiling_server("naive", http_port, f"127.0.0.1:{grpc_port}"),
        ):
            for conns in connections:
                before = _row_counts(dsn)
                result = measure("naive_peer", f"http://127.0.0.1:{http_port}", "naive_create.lua", conns)
                after = _row_counts(dsn)
                charges, events = after[0] - before[0], after[1] - before[1]
                answered = _answered_2xx(result)
                if charges != events or (answered is not None and charges < answered):
                    raise RuntimeError(
                        f"naive peer c{conns}: {answered} answered 2xx but {charges} charges, {events} events"
                    )
                out[f"c{conns}"] = result
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return out
