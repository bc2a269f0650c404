"""Starts the real core and gateway as subprocesses on free loopback ports, logging to files."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RunningProcess:
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

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def kill(self) -> None:
        self.stop(signal.SIGKILL)


def _spawn(name: str, module: str, env: dict[str, str], port: int) -> RunningProcess:
    log_path = Path(tempfile.mkdtemp(prefix=f"pc-{name}-")) / f"{name}.log"
    pythonpath = os.pathsep.join([str(ROOT), str(ROOT / "protos")])
    full_env = {**os.environ, **env, "PYTHONPATH": pythonpath}
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", module], cwd=ROOT, env=full_env,
                                   stdout=log, stderr=subprocess.STDOUT)
    return RunningProcess(name, process, "127.0.0.1", port, log_path)


def _wait(running: RunningProcess, ready: object) -> RunningProcess:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(f"{running.name} exited early:\n{running.log_text()[-3000:]}")
        if ready():  # type: ignore[operator]
            return running
        time.sleep(0.1)
    running.kill()
    raise RuntimeError(f"{running.name} not ready in {READY_TIMEOUT} s:\n{running.log_text()[-3000:]}")


def start_core(env: dict[str, str], port: int | None = None) -> RunningProcess:
    port = port or free_port()
    running = _spawn("core", "core_server", {**env, "CORE_GRPC_ADDR": f"127.0.0.1:{port}"}, port)

    def ready() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.3):
                return True
        except OSError:
            return False

    return _wait(running, ready)


def start_gateway(env: dict[str, str], core_addrs: list[str], port: int | None = None) -> RunningProcess:
    port = port or free_port()
    gateway_env = {
        **env,
        "CORE_GRPC_ADDR": ",".join(core_addrs),
        "HTTP_HOST": "127.0.0.1",
        "HTTP_PORT": str(port),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "CHECKOUT_BASE_URL": f"http://127.0.0.1:{port}",
    }
    running = _spawn("gateway", "http_gateway", gateway_env, port)

    def ready() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5).status_code == 200
        except httpx.HTTPError:
            return False

    return _wait(running, ready)
