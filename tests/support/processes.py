"""Starts the real core and gateway as subprocesses on free loopback ports, each logging to its own file."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 30.0
LOG_TAIL_CHARS = 4000
_log_dir: Path | None = None


# Ports for the suite's children come from below the kernel's ephemeral range (32768–60999 on Linux), so
# an outgoing connection can never take a port between our check and the child's bind, and each pytest-
# xdist worker draws from its own slice, so two workers never hand out the same port.
PORT_BASE = 20000
PORTS_PER_WORKER = 1500
_next_port: int | None = None


def _worker_index() -> int:
    """0 for a run without xdist and for its first worker (`gw0`), n for `gwn`."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker.removeprefix("gw") or 0) % 8


def free_port() -> int:
    """A loopback port free right now, from this worker's slice (the child binds it a moment later; a
    clash with another program fails loudly). Ports are handed out in turn, so one a stopped child
    lingers on in TIME_WAIT is not the next one given."""
    global _next_port
    first = PORT_BASE + _worker_index() * PORTS_PER_WORKER
    if _next_port is None:
        # Another test session on the machine starts elsewhere in the slice.
        _next_port = first + (os.getpid() * 7919) % PORTS_PER_WORKER
    for _ in range(PORTS_PER_WORKER):
        port = _next_port
        _next_port = first + (_next_port + 1 - first) % PORTS_PER_WORKER
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port in {first}..{first + PORTS_PER_WORKER - 1}")


def log_dir() -> Path:
    """One directory per test session for every child's log, kept after the run for post-mortems."""
    global _log_dir
    if _log_dir is None:
        _log_dir = Path(tempfile.mkdtemp(prefix="pc-test-processes-"))
    return _log_dir


@dataclass
class RunningProcess:
    """A started core or gateway: where it listens, its log, and how to stop it."""

    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int
    log_path: Path

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"http://{self.address}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_with(self, marker: str, timeout: float = 10.0) -> str:
        """The log once it holds `marker` (polled with a deadline). A process writes its lines in order,
        so when the marker of a later request is there, every line of the requests before it is too."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.log_text()
            if marker in text:
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: {marker!r} not logged within {timeout} s")
            time.sleep(0.05)

    def log_tail(self, chars: int = LOG_TAIL_CHARS) -> str:
        return self.log_text()[-chars:]

    def is_running(self) -> bool:
        return self.process.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        """Send `sig`, wait up to `timeout`, then SIGKILL; returns the exit code (negative: a signal)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return int(self.process.returncode)

    def kill(self) -> int:
        return self.stop(signal.SIGKILL, timeout=10.0)

    def __enter__(self) -> RunningProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def pid_alive(pid: int) -> bool:
    """The process exists and is no zombie (a dead child not yet reaped by its parent or init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def children_running(parent_pid: int, module: str) -> list[int]:
    """Live child processes of `parent_pid` started as `python -m <module>` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == parent_pid and fields[0] != "Z" and module.encode() in cmdline:
            found.append(int(entry.name))
    return found


# util-linux's setpriv asks the kernel to SIGTERM the child when the test process that started it exits
# (PR_SET_PDEATHSIG, kept across the exec of python), so a worker that pytest-timeout ends, or any crash of
# the suite, takes its cores and gateways with it instead of leaving them serving, holding ports and
# database connections. Not a preexec_fn: a fork that runs Python code in the child runs the parent's
# fork handlers first, and grpc's wait on its own threads there hung a worker.
_SETPRIV = shutil.which("setpriv")
_DIE_WITH_THE_SUITE = [_SETPRIV, "--pdeathsig", "SIGTERM", "--"] if _SETPRIV else []


def _spawn(name: str, module: str, env: Mapping[str, str], port: int) -> RunningProcess:
    log_path = log_dir() / f"{name}-{port}.log"
    pythonpath = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "protos"), os.environ.get("PYTHONPATH")) if p
    )
    full_env = {**os.environ, **env, "PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1"}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*_DIE_WITH_THE_SUITE, sys.executable, "-m", module],
            cwd=ROOT,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return RunningProcess(name, process, "127.0.0.1", port, log_path)


def wait_ready(
    running: RunningProcess, ready: Callable[[], bool], timeout: float = READY_TIMEOUT
) -> RunningProcess:
    """Poll `ready` until it holds; a child that exits or stays unready fails with its log tail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(
                f"{running.name} on {running.address} exited with code {running.process.returncode} "
                f"before it was ready; log {running.log_path}:\n{running.log_tail()}"
            )
        if ready():
            return running
        time.sleep(0.1)
    running.kill()
    raise RuntimeError(
        f"{running.name} on {running.address} was not ready within {timeout:.0f} s; "
        f"log {running.log_path}:\n{running.log_tail()}"
    )


def core_serving(address: str, root_certificate: bytes | None = None) -> bool:
    """The core's standard gRPC health check answers SERVING (over TLS when given the CA to trust)."""
    channel = (
        grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificate))
        if root_certificate
        else grpc.insecure_channel(address)
    )
    with channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def gateway_healthy(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/healthz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def start_core(
    env_overrides: Mapping[str, str], port: int | None = None, timeout: float = READY_TIMEOUT
) -> RunningProcess:
    """`python -m core_server` on 127.0.0.1:`port` (a free one by default), ready when health says SERVING."""
    port = port or free_port()
    # A free metrics port of its own: the default (gRPC port + 1000) could be one a later test picks.
    env = {
        "CORE_METRICS_ADDR": f"127.0.0.1:{free_port()}",
        **env_overrides,
        "CORE_GRPC_ADDR": f"127.0.0.1:{port}",
    }
    running = _spawn("core", "core_server", env, port)
    # A test's core with CORE_TLS_* has a self-signed certificate: it is its own CA.
    cert_file = env.get("CORE_TLS_CERT_FILE")
    root = Path(cert_file).read_bytes() if cert_file else None
    return wait_ready(running, lambda: core_serving(running.address, root), timeout)


def start_gateway(
    env_overrides: Mapping[str, str],
    core_addrs: Sequence[str],
    port: int | None = None,
    timeout: float = READY_TIMEOUT,
) -> RunningProcess:
    """`python -m http_gateway` balancing over `core_addrs`, ready when GET /healthz answers 200."""
    port = port or free_port()
    own = f"http://127.0.0.1:{port}"
    env = {
        "PUBLIC_BASE_URL": own,
        "CHECKOUT_BASE_URL": own,
        **env_overrides,
        "CORE_GRPC_ADDR": ",".join(core_addrs),
        "HTTP_HOST": "127.0.0.1",
        "HTTP_PORT": str(port),
    }
    running = _spawn("gateway", "http_gateway", env, port)
    return wait_ready(running, lambda: gateway_healthy(running.base_url), timeout)
