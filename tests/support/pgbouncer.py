"""A private PgBouncer in transaction pooling mode in front of a private PostgreSQL, for the pooled e2e test.

Debian's binary (scripts/ensure_pgbouncer.sh installs it; `make test` calls it) with a config of its own
in a temp dir, on a free loopback port, `auth_type = trust`. Like postgres it refuses to run as root, so it
runs as the same user as the private cluster. `connect_query` is what the operator sets for the core's
time-outs (docs/operations.md): the server connections carry them, since a pooled client cannot.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.support.private_services import START_TIMEOUT, PrivatePostgres
from tests.support.processes import free_port


def pgbouncer_binary() -> Path | None:
    found = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None
    )
    return Path(found) if found else None


@dataclass
class PrivatePgBouncer:
    root: Path
    port: int
    postgres: PrivatePostgres
    process: subprocess.Popen[bytes] | None = None

    def dsn(self, dbname: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def write_config(self, connect_query: str | None, pool_size: int) -> Path:
        database = f"host=127.0.0.1 port={self.postgres.port}"
        if connect_query:
            database += f" connect_query='{connect_query}'"
        config = self.root / "pgbouncer.ini"
        config.write_text(
            "[databases]\n"
            f"* = {database}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.root / 'userlist.txt'}\n"
            "admin_users = postgres\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\n"
            "max_client_conn = 500\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n"
            f"pidfile = {self.root / 'pgbouncer.pid'}\n"
        )
        (self.root / "userlist.txt").write_text('"postgres" ""\n')
        return config

    def start(self, connect_query: str | None, pool_size: int = 20) -> None:
        binary = pgbouncer_binary()
        assert binary is not None, "pgbouncer is not installed (scripts/ensure_pgbouncer.sh)"
        config = self.write_config(connect_query, pool_size)
        if self.postgres.user is not None:
            for path in (self.root, *self.root.iterdir()):
                shutil.chown(path, user=self.postgres.user)
        with (self.root / "stdout.log").open("ab") as log:
            self.process = subprocess.Popen(
                [str(binary), str(config)],
                user=self.postgres.user,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.is_up():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer on {self.port} did not start: {self.log_text()[-2000:]}")
            time.sleep(0.05)

    def is_up(self) -> bool:
        try:
            with psycopg.connect(self.dsn("postgres"), connect_timeout=2, prepare_threshold=None) as conn:
                conn.execute("SELECT 1")
        except psycopg.OperationalError:
            return False
        return True

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def log_text(self) -> str:
        parts = [
            p.read_text(errors="replace") for p in (self.root / "pgbouncer.log", self.root / "stdout.log")
        ]
        return "\n".join(p for p in parts if p)

    def show(self, command: str) -> list[dict[str, str]]:
        """A SHOW of the admin console (simple query protocol only: psql, as an operator would)."""
        psql = self.postgres.bindir / "psql"
        result = subprocess.run(
            [
                str(psql),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                "pgbouncer",
                "-A",
                "-F",
                "\t",
                "-P",
                "footer=off",
                "-c",
                command,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=20,
        )
        lines = result.stdout.splitlines()
        header = lines[0].split("\t")
        return [dict(zip(header, line.split("\t"), strict=False)) for line in lines[1:]]


@contextlib.contextmanager
def private_pgbouncer(
    postgres: PrivatePostgres, connect_query: str | None, pool_size: int = 20
) -> Iterator[PrivatePgBouncer]:
    root = Path(tempfile.mkdtemp(prefix="pc-pgbouncer-"))
    bouncer = PrivatePgBouncer(root, free_port(), postgres)
    try:
        bouncer.start(connect_query, pool_size)
        yield bouncer
    finally:
        bouncer.stop()
        shutil.rmtree(root, ignore_errors=True)
