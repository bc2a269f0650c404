"""A private PostgreSQL primary with a synchronous streaming standby, for failover tests.

Built the way an operator builds one by hand (a failover manager such as Patroni does the same steps):
`initdb` the primary, `pg_basebackup -R` the standby from it (the `-R` writes `standby.signal` and
`primary_conninfo`), then `synchronous_standby_names` on the primary, so a commit returns only once the
standby has its WAL. `kill_primary` is a crash (`pg_ctl stop -m immediate`), `promote` is `pg_ctl promote`.
The clients get both hosts in one libpq URL with `target_session_attrs=read-write` and find the writable
one themselves.
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

from tests.support.private_services import PrivatePostgres
from tests.support.processes import free_port

SYNC_TIMEOUT = 20.0


@dataclass
class ReplicatedPostgres:
    primary: PrivatePostgres
    standby: PrivatePostgres
    dbname: str

    def dsn(self, dbname: str | None = None) -> str:
        """Both hosts, the writable one wanted: what DATABASE_URL says in front of a failover pair."""
        hosts = f"127.0.0.1:{self.primary.port},127.0.0.1:{self.standby.port}"
        return f"postgresql://postgres@{hosts}/{dbname or self.dbname}?target_session_attrs=read-write"

    def clone_standby(self) -> None:
        if self.standby.user is not None:
            shutil.chown(self.standby.root, user=self.standby.user)
        self.standby._run(
            "pg_basebackup",
            "-D",
            str(self.standby.datadir),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.primary.port),
            "-U",
            "postgres",
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "--no-sync",
        )

    def make_synchronous(self) -> None:
        """Any standby ('*') must confirm each commit; waits until the standby reports `sync`."""
        with psycopg.connect(self.primary.dsn(), autocommit=True, connect_timeout=5) as conn:
            conn.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
            conn.execute("SELECT pg_reload_conf()")
        wait_for_sync_state(self.primary.dsn(), "sync")

    def kill_primary(self) -> None:
        """Every backend of the primary dies at once (SIGQUIT to all, no checkpoint): a crashed host."""
        self.primary.stop("immediate")

    def promote(self) -> None:
        self.standby._run("pg_ctl", "-D", str(self.standby.datadir), "-w", "-t", "30", "promote")


def wait_for_sync_state(dsn: str, state: str) -> None:
    deadline = time.monotonic() + SYNC_TIMEOUT
    while True:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
            rows = conn.execute("SELECT sync_state FROM pg_stat_replication").fetchall()
        if any(row[0] == state for row in rows):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the standby never reached sync_state={state!r}: {rows}")
        time.sleep(0.1)


@contextlib.contextmanager
def replicated_postgres(dbname: str) -> Iterator[ReplicatedPostgres]:
    """A primary with database `dbname` and a synchronous standby streaming from it, both running;
    stopped and deleted afterwards."""
    roots = [Path(tempfile.mkdtemp(prefix=f"pc-failover-{role}-")) for role in ("primary", "standby")]
    pair = ReplicatedPostgres(
        PrivatePostgres(roots[0], free_port()), PrivatePostgres(roots[1], free_port()), dbname
    )
    try:
        pair.primary.init()
        pair.primary.start()
        pair.primary.create_database(dbname)
        pair.clone_standby()
        pair.standby.start()
        pair.make_synchronous()
        yield pair
    finally:
        for server in (pair.standby, pair.primary):
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                if (server.datadir / "postmaster.pid").exists():
                    server.stop("immediate")
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)
