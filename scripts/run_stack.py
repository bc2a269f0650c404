"""Runs the stack for operators: `make run` (1 core + 1 gateway), `make cluster`, `make core`, `make gateway`.

Uses DATABASE_URL / REDIS_URL when set, else the embedded services of dev_stack.py. Children's output is
prefixed with their name; Ctrl-C or SIGTERM stops the children (SIGTERM, then SIGKILL after a grace)
and then the embedded services this run started.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dev_stack  # noqa: E402 - a sibling script, not a package

ROOT = dev_stack.ROOT
READY_TIMEOUT = 60.0
STOP_GRACE = 10.0


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int


def _pythonpath() -> str:
    parts = [str(ROOT), str(ROOT / "protos"), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in parts if p)


def _wait_port(child: Child) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise RuntimeError(f"{child.name} exited with code {child.process.returncode} before it was ready")
        try:
            with socket.create_connection((child.host, child.port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{child.name} did not open {child.host}:{child.port} within {READY_TIMEOUT:.0f} s")


def _pump(child: Child) -> None:
    assert child.process.stdout is not None
    for line in iter(child.process.stdout.readline, b""):
        sys.stdout.write(f"[{child.name}] {line.decode(errors='replace')}")
        sys.stdout.flush()


def _spawn(name: str, module: str, env: dict[str, str], host: str, port: int) -> Child:
    process = subprocess.Popen(
        [sys.executable, "-m", module], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    child = Child(name, process, host, port)
    threading.Thread(target=_pump, args=(child,), daemon=True).start()
    return child


def _stop(children: list[Child]) -> None:
    for child in children:
        if child.process.poll() is None:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for child in children:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.process.kill()
            child.process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cores", type=int, default=1)
    parser.add_argument("--gateways", type=int, default=1)
    parser.add_argument("--only", choices=("core", "gateway"), help="run one process, honouring its env vars")
    args = parser.parse_args()

    started_services = not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
    base = {**os.environ, **dev_stack.ensure_services(), "PYTHONPATH": _pythonpath()}
    children: list[Child] = []
    stop_requested = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop_requested.set())
    try:
        if args.only == "core":
            addr = base.get("CORE_GRPC_ADDR", "127.0.0.1:50051")
            host, port = addr.rsplit(":", 1)
            children.append(_spawn("core", "core_server", base, host, int(port)))
        elif args.only == "gateway":
            host, port = base.get("HTTP_HOST", "127.0.0.1"), int(base.get("HTTP_PORT", "8000"))
            children.append(_spawn("gateway", "http_gateway", base, host, port))
        else:
            core_addrs = [f"127.0.0.1:{50051 + i}" for i in range(args.cores)]
            for i, addr in enumerate(core_addrs):
                children.append(_spawn(f"core-{i + 1}", "core_server", {**base, "CORE_GRPC_ADDR": addr},
                                       "127.0.0.1", 50051 + i))
            for child in children:
                _wait_port(child)
            for j in range(args.gateways):
                port = 8000 + j
                env = {**base, "CORE_GRPC_ADDR": ",".join(core_addrs), "HTTP_HOST": "127.0.0.1",
                       "HTTP_PORT": str(port)}
                env.setdefault("PUBLIC_BASE_URL", f"http://127.0.0.1:{port}")
                children.append(_spawn(f"gateway-{j + 1}", "http_gateway", env, "127.0.0.1", port))
        for child in children:
            _wait_port(child)
        print("\nMerchant Payment Connect is running:")
        for child in children:
            kind = "gRPC " if "core" in child.name else "HTTP  http://"
            print(f"  {child.name:<10} {kind}{child.host}:{child.port}")
        print(f"  database   {base['DATABASE_URL'].split('@')[-1]}")
        print(f"  redis      {base['REDIS_URL'].split('@')[-1]}")
        print("Press Ctrl-C to stop.\n", flush=True)
        while not stop_requested.is_set():
            for child in children:
                if child.process.poll() is not None:
                    print(f"{child.name} exited with code {child.process.returncode}; stopping", file=sys.stderr)
                    return 1
            stop_requested.wait(0.5)
        return 0
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        _stop(children)
        if started_services and args.only is None:
            dev_stack.stop_services()


if __name__ == "__main__":
    sys.exit(main())
