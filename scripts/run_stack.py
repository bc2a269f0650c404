"""Runs cores and gateways for operators: `make run`, `make cluster`, `make core`, `make gateway`.

    run_stack.py                          # 1 core (127.0.0.1:50051) + 1 gateway (http://127.0.0.1:8000)
    run_stack.py --cores 2 --gateways 2   # cores 50051.., gateways 8000.., each balancing over all cores
    run_stack.py --only core              # one core at CORE_GRPC_ADDR (default 127.0.0.1:50051)
    run_stack.py --only gateway           # one gateway at HTTP_HOST:HTTP_PORT, talking to CORE_GRPC_ADDR

PostgreSQL and Redis come from DATABASE_URL / REDIS_URL, else from the embedded stack of dev_stack.py.
Children's output is forwarded with their name as prefix. Ctrl-C or SIGTERM stops the children (SIGTERM,
then SIGKILL after a grace) and then the embedded services this run started; `--only` runs leave the
services up, because other operator-started processes share them. A child that does not start (exits or
is not ready in time) fails the run (exit 1) with the tail of its output. Once the stack is up, a core or
gateway that dies is restarted after a back-off (1 s, 2 s, 4 s … up to 30 s; back to 1 s once it has run
for a minute) and every restart is logged, while the others keep serving; only Ctrl-C/SIGTERM stops all.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dev_stack  # noqa: E402 - a sibling script, not a package

ROOT = dev_stack.ROOT
READY_TIMEOUT = 60.0
STOP_GRACE = 10.0
TAIL_LINES = 40
RESTART_FIRST_SECONDS = 1.0
RESTART_MAX_SECONDS = 30.0
STABLE_SECONDS = 60.0
"""A child that ran this long without dying is healthy again: its next restart waits the first delay."""
MODULES = {"core": "core_server", "gateway": "http_gateway"}
_output_lock = threading.Lock()


class StackError(RuntimeError):
    """A child could not start or died; the message carries the tail of its output."""


@dataclass(frozen=True, slots=True)
class Spec:
    """One process to launch: its role, name, bind address and environment overrides."""

    kind: str
    name: str
    host: str
    port: int
    env: dict[str, str]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass
class RestartBackoff:
    """When to restart a child that died: 1 s, 2 s, 4 s … capped; a stable run resets it. Pure."""

    first: float = RESTART_FIRST_SECONDS
    cap: float = RESTART_MAX_SECONDS
    stable: float = STABLE_SECONDS
    next_delay: float = RESTART_FIRST_SECONDS
    restarts: int = 0

    def delay_after_exit(self, ran_seconds: float) -> float:
        """The wait before the restart of a child that died after running `ran_seconds`."""
        if ran_seconds >= self.stable:
            self.next_delay = self.first
        delay = self.next_delay
        self.next_delay = min(delay * 2, self.cap)
        self.restarts += 1
        return delay


@dataclass
class Child:
    spec: Spec
    process: subprocess.Popen[bytes]
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    pump: threading.Thread | None = None
    started: float = field(default_factory=time.monotonic)
    backoff: RestartBackoff = field(default_factory=RestartBackoff)
    restart_at: float | None = None
    """Set while the child is dead and waits for its restart."""

    def describe_exit(self) -> str:
        if self.pump is not None:
            self.pump.join(timeout=2)  # let the last lines arrive before we quote them
        lines = "".join(self.tail) or "(no output)\n"
        code = self.process.returncode
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        return f"{self.spec.name} {how}; last output:\n{lines}"


def plan(args: argparse.Namespace, environ: Mapping[str, str]) -> list[Spec]:
    """Which processes to start, with the variables that differ from the shared environment."""
    if args.only == "core":
        host, port = _split(environ.get("CORE_GRPC_ADDR") or "127.0.0.1:50051")
        return [Spec("core", "core", host, port, {})]
    if args.only == "gateway":
        host = environ.get("HTTP_HOST") or "127.0.0.1"
        return [Spec("gateway", "gateway", host, int(environ.get("HTTP_PORT") or 8000), {})]
    core_addrs = [f"127.0.0.1:{args.core_port + i}" for i in range(args.cores)]
    first_gateway = f"http://127.0.0.1:{args.http_port}"
    specs = []
    # A local stack: TEST webhook endpoints may target this machine (the operator may still say 0).
    private_targets = environ.get("WEBHOOK_ALLOW_PRIVATE_TARGETS") or "1"
    for i, addr in enumerate(core_addrs):
        env = {"CORE_GRPC_ADDR": addr, "WEBHOOK_ALLOW_PRIVATE_TARGETS": private_targets}
        if args.gateways:
            # The core writes checkout URLs; without an operator's choice they point at the first gateway.
            env["PUBLIC_BASE_URL"] = environ.get("PUBLIC_BASE_URL") or first_gateway
            env["CHECKOUT_BASE_URL"] = environ.get("CHECKOUT_BASE_URL") or env["PUBLIC_BASE_URL"]
        specs.append(Spec("core", f"core-{i + 1}", "127.0.0.1", args.core_port + i, env))
    for j in range(args.gateways):
        env = {
            "CORE_GRPC_ADDR": ",".join(core_addrs),
            "HTTP_HOST": "127.0.0.1",
            "HTTP_PORT": str(args.http_port + j),
        }
        specs.append(Spec("gateway", f"gateway-{j + 1}", "127.0.0.1", args.http_port + j, env))
    return specs


def _split(addr: str) -> tuple[str, int]:
    host, _, port = addr.strip().rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


def _probe_host(host: str) -> str:
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((_probe_host(host), port)) == 0


def spawn(spec: Spec, base_env: Mapping[str, str], forward: bool = True) -> Child:
    process = _launch(spec, base_env)
    child = Child(spec, process)
    child.pump = threading.Thread(target=_pump, args=(child, forward), name=f"pump-{spec.name}", daemon=True)
    child.pump.start()
    return child


def respawn(child: Child, base_env: Mapping[str, str], forward: bool = True) -> None:
    """The same child again, in a new process; its back-off state carries over."""
    if child.pump is not None:
        child.pump.join(timeout=2)
    child.tail.clear()  # the next exit quotes this run's output only
    child.process = _launch(child.spec, base_env)
    child.started = time.monotonic()
    child.restart_at = None
    child.pump = threading.Thread(
        target=_pump, args=(child, forward), name=f"pump-{child.spec.name}", daemon=True
    )
    child.pump.start()


def supervise(children: Sequence[Child], base_env: Mapping[str, str], now: float) -> None:
    """One look at every child: schedule the restart of one that died, restart one whose wait is over."""
    for child in children:
        if child.restart_at is None:
            if child.process.poll() is None:
                continue
            delay = child.backoff.delay_after_exit(now - child.started)
            child.restart_at = now + delay
            log(
                f"{child.describe_exit()}restarting {child.spec.name} in {delay:.0f} s "
                f"(restart {child.backoff.restarts})"
            )
        elif now >= child.restart_at:
            respawn(child, base_env)
            log(f"restarted {child.spec.name} (pid {child.process.pid}) at {child.spec.address}")


def log(message: str) -> None:
    with _output_lock:
        print(f"[run_stack] {message}", file=sys.stderr, flush=True)


def _launch(spec: Spec, base_env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    pythonpath = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "protos"), base_env.get("PYTHONPATH", "")) if p
    )
    env = {**base_env, **spec.env, "PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1"}
    # A session of its own: the terminal's Ctrl-C reaches only us, and we stop children in order.
    return subprocess.Popen(
        [sys.executable, "-m", MODULES[spec.kind]],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _pump(child: Child, forward: bool) -> None:
    assert child.process.stdout is not None
    prefix = f"[{child.spec.name}] ".encode()
    for raw in iter(child.process.stdout.readline, b""):
        child.tail.append(raw.decode(errors="replace"))
        if forward:
            with _output_lock:
                sys.stdout.buffer.write(prefix + raw)
                sys.stdout.buffer.flush()


def is_ready(spec: Spec, env: Mapping[str, str]) -> bool:
    if spec.kind == "gateway":
        return _gateway_ready(spec, env)
    return _core_ready(spec, env)


def _core_ready(spec: Spec, env: Mapping[str, str]) -> bool:
    """gRPC health Check of the core; with TLS on the core port, an open port is the best we can see."""
    target = f"{_probe_host(spec.host)}:{spec.port}"
    if env.get("CORE_TLS_CERT_FILE"):
        return port_in_use(spec.host, spec.port)
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=1.0
            )
        except grpc.RpcError as exc:
            return bool(exc.code() == grpc.StatusCode.UNIMPLEMENTED)  # gRPC answers, no health service
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _gateway_ready(spec: Spec, env: Mapping[str, str]) -> bool:
    """GET /healthz answers 200 once the gateway reaches a core and Redis."""
    tls = bool(env.get("TLS_CERT_FILE"))
    url = f"{'https' if tls else 'http'}://{_probe_host(spec.host)}:{spec.port}/healthz"
    context = ssl._create_unverified_context() if tls else None  # dev certificates are self-signed
    try:
        with urllib.request.urlopen(url, timeout=2.0, context=context) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def wait_ready(
    children: Sequence[Child], env: Mapping[str, str], timeout: float, stop: threading.Event
) -> None:
    deadline = time.monotonic() + timeout
    pending = list(children)
    while pending:
        if stop.is_set():
            return
        for child in list(pending):
            if child.process.poll() is not None:
                raise StackError(f"{child.spec.name} did not start: {child.describe_exit()}")
            if is_ready(child.spec, {**env, **child.spec.env}):
                pending.remove(child)
        if pending and time.monotonic() > deadline:
            child = pending[0]
            probe = "GET /healthz not 200" if child.spec.kind == "gateway" else "gRPC health not SERVING"
            raise StackError(
                f"{child.spec.name} was not ready at {child.spec.address} within {timeout:.0f} s ({probe}); "
                "last output:\n" + "".join(child.tail)
            )
        stop.wait(0.2)


def stop_children(children: Sequence[Child], grace: float = STOP_GRACE) -> None:
    """SIGTERM to all (gateways first, so no request hits a stopping core), then SIGKILL after the grace."""
    ordered = sorted(children, key=lambda c: c.spec.kind != "gateway")
    for child in ordered:
        if child.process.poll() is None:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in ordered:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"{child.spec.name} ignored SIGTERM for {grace:.0f} s; killing it", file=sys.stderr)
            child.process.kill()
            child.process.wait()
        if child.pump is not None:
            child.pump.join(timeout=2)


def banner(children: Sequence[Child], env: Mapping[str, str], started: Sequence[str], keep: bool) -> str:
    lines = ["", "Merchant Payment Connect is running:"]
    for child in children:
        spec = child.spec
        scheme = "https" if env.get("TLS_CERT_FILE") else "http"
        if spec.kind == "gateway":
            where = f"{scheme}://{spec.address}  (metrics: /metrics)"
        else:
            host, port = _split(spec.address)
            where = f"gRPC {spec.address}  (metrics: http://{host}:{port + 1000}/metrics)"
        lines.append(f"  {spec.name:<11} {where}")
    for key, label in (("DATABASE_URL", "postgres"), ("REDIS_URL", "redis")):
        if key not in env:
            continue
        note = ""
        if not os.environ.get(key):
            stops = label in started and not keep
            note = " (embedded; stops with this run)" if stops else " (embedded; stays up: make stop)"
        lines.append(f"  {label:<11} {dev_stack.redact(env[key])}{note}")
    lines += topology_lines(env)
    if any(
        {**env, **c.spec.env}.get("WEBHOOK_ALLOW_PRIVATE_TARGETS") == "1"
        for c in children
        if c.spec.kind == "core"
    ):
        lines.append(
            "  webhooks    TEST endpoints may target loopback and private addresses "
            "(WEBHOOK_ALLOW_PRIVATE_TARGETS=1; development only)"
        )
    lines += ["Press Ctrl-C to stop.", ""]
    return "\n".join(lines)


def topology_lines(env: Mapping[str, str]) -> list[str]:
    """The production topology the processes were pointed at (docs/operations.md), if any."""
    lines = []
    if env.get("DATABASE_POOLER"):
        listen = dev_stack.redact(env.get("DATABASE_LISTEN_URL", "(unset: the core refuses to start)"))
        lines.append(f"  {'pooler':<11} {env['DATABASE_POOLER']} in front; LISTEN direct to {listen}")
    if env.get("REDIS_SENTINELS"):
        service = env.get("REDIS_SENTINEL_SERVICE", "(unset: the processes refuse to start)")
        lines.append(f"  {'sentinel':<11} master of {service!r} asked of {env['REDIS_SENTINELS']}")
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cores", type=int, default=1, help="number of core processes (default 1)")
    parser.add_argument("--gateways", type=int, default=1, help="number of gateway processes (default 1)")
    parser.add_argument("--only", choices=("core", "gateway"), help="one process, addressed by its env vars")
    parser.add_argument("--core-port", type=int, default=50051, help="first core's port (default 50051)")
    parser.add_argument("--http-port", type=int, default=8000, help="first gateway's port (default 8000)")
    parser.add_argument("--ready-timeout", type=float, default=READY_TIMEOUT, help="seconds per start wait")
    parser.add_argument("--keep-services", action="store_true", help="leave embedded PostgreSQL/Redis up")
    args = parser.parse_args(argv)
    if args.cores < 1 and args.only is None:
        parser.error("--cores must be at least 1")
    if args.gateways < 0:
        parser.error("--gateways must not be negative")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    specs = plan(args, os.environ)
    busy = [s for s in specs if port_in_use(s.host, s.port)]
    if busy:
        taken = ", ".join(s.address for s in busy)
        print(f"error: {taken} already in use (another stack running?)", file=sys.stderr)
        return 1
    # A lone gateway needs no database; everything else needs both servers.
    needed = ("redis",) if args.only == "gateway" else dev_stack.SERVICES
    try:
        stack = dev_stack.ensure_stack(ROOT, needed)
    except Exception as exc:  # noqa: BLE001 - report any start-up failure of the services plainly
        print(f"error: could not start the embedded services: {exc}", file=sys.stderr)
        return 1
    keep = args.keep_services or args.only is not None
    env = {**os.environ, **stack.env}
    children: list[Child] = []
    try:
        for kind in ("core", "gateway"):  # gateways report healthy only once a core answers
            if stop.is_set():
                break
            batch = [spawn(spec, env) for spec in specs if spec.kind == kind]
            children += batch
            wait_ready(batch, env, args.ready_timeout, stop)
        if not stop.is_set():
            print(banner(children, env, stack.started, keep), flush=True)
        while not stop.wait(0.5):
            supervise(children, env, time.monotonic())
        return 0
    except StackError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        stop_children(children)
        if stack.started and not keep:
            dev_stack.stop_services(ROOT, stack.started)


if __name__ == "__main__":
    sys.exit(main())
