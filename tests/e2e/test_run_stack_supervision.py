"""`make cluster` supervision: a core killed with SIGKILL is restarted while the others keep serving, and
only SIGTERM to the runner stops everything.

Runs `scripts/run_stack.py --cores 2 --gateways 1` as an operator would, against the session's PostgreSQL
and Redis (DATABASE_URL/REDIS_URL, so no embedded services are started).
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.e2e.api_client import create_charge, sign_up
from tests.support.processes import ROOT, log_dir

pytestmark = pytest.mark.e2e

READY_SECONDS = 60.0
RESTART_SECONDS = 30.0  # the first restart waits 1 s; the core then migrates, recovers and serves


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_core_ports() -> int:
    """A first core port P with P, P+1 and their metrics ports (+1000) all free."""
    for _ in range(200):
        first = random.randint(20_000, 28_000)
        if all(_port_free(p) for p in (first, first + 1, first + 1000, first + 1001)):
            return first
    raise RuntimeError("no free port range for two cores")


def _children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(): v.decode(errors="replace") for k, v in pairs}


def _core_serving(port: int) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _healthz(base_url: str) -> int:
    try:
        return httpx.get(f"{base_url}/healthz", timeout=3.0).status_code
    except httpx.HTTPError:
        return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


@pytest.fixture
def runner(stack_env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], int, str, Path]]:
    core_port = _free_core_ports()
    http_port = _free_core_ports()  # any free port will do; this one is known free
    log_path = log_dir() / f"run-stack-{core_port}.log"
    env = {**os.environ, **stack_env}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "scripts" / "run_stack.py"),
                "--cores",
                "2",
                "--gateways",
                "1",
                "--core-port",
                str(core_port),
                "--http-port",
                str(http_port),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process, core_port, f"http://127.0.0.1:{http_port}", log_path
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait(condition, seconds: float, what: str, log_path: Path) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what} within {seconds:.0f} s; runner log:\n{log_path.read_text()[-4000:]}"
            )
        time.sleep(0.2)


def test_a_killed_core_is_restarted_while_the_others_serve_and_sigterm_stops_all(runner) -> None:
    process, core_port, base_url, log_path = runner
    _wait(lambda: "is running" in log_path.read_text(), READY_SECONDS, "the stack was not up", log_path)
    children = _children(process.pid)
    assert len(children) == 3, children
    first_core = next(
        pid for pid in children if _environ_of(pid).get("CORE_GRPC_ADDR") == f"127.0.0.1:{core_port}"
    )
    with httpx.Client(base_url=base_url, timeout=15.0) as client:
        merchant = sign_up(client)

        os.kill(first_core, signal.SIGKILL)
        killed = time.monotonic()
        _wait(lambda: not _core_serving(core_port), 5.0, "the killed core still answered", log_path)
        # While it is down, the gateway keeps serving through the other core.
        while not _core_serving(core_port):
            assert _healthz(base_url) == 200
            create_charge(client, merchant)
            assert time.monotonic() - killed < RESTART_SECONDS, log_path.read_text()[-4000:]
            time.sleep(0.2)
        assert process.poll() is None, "the runner stopped when one core died"
        assert "restarting core-1 in 1 s (restart 1)" in log_path.read_text()
        assert "restarted core-1" in log_path.read_text()
        restarted = [pid for pid in _children(process.pid) if pid not in children]
        assert len(restarted) == 1 and set(_children(process.pid)) == {*children, *restarted} - {first_core}
        create_charge(client, merchant)

    running = _children(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    _wait(lambda: not any(_alive(pid) for pid in running), 5.0, "a child outlived the runner", log_path)
