"""Starts the ceiling servers of ceiling_servers.py one at a time and measures them with wrk."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

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
def ceiling_server(kind: str, port: int, grpc_target: str | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """One ceiling server process, stopped (by its own pid) when the block ends."""
    command = [sys.executable, str(HERE / "ceiling_servers.py"), kind, "--port", str(port)]
    if grpc_target:
        command += ["--grpc-target", grpc_target]
    pythonpath = os.pathsep.join(p for p in (str(ROOT), str(ROOT / "protos"), os.environ.get("PYTHONPATH")) if p)
    log = tempfile.NamedTemporaryFile(prefix=f"bench-{kind}-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": pythonpath},
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ceiling server {kind} did not start; log {log.name}:\n"
                                   + Path(log.name).read_text()[-2000:])
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
            out["bare_sanic"][f"c{conns}"] = measure("bare_sanic", f"http://127.0.0.1:{port}", "bare_post.lua", conns)
    grpc_port, http_port = _free_port(), _free_port()
    with ceiling_server("grpc", grpc_port), ceiling_server("twohop", http_port, f"127.0.0.1:{grpc_port}"):
        for conns in connections:
            out["two_hop"][f"c{conns}"] = measure("two_hop", f"http://127.0.0.1:{http_port}", "bare_post.lua", conns)
    return out
