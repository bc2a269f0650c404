"""A private Redis master, a replica and three Sentinels watching them, for failover tests.

Sentinel is the redis-server binary started with `--sentinel` (Debian's `redis-sentinel` is a link to it),
so any redis-server the suite finds will do. Each sentinel writes its own config file (it rewrites it
as it learns), all on free loopback ports. The quorum is a majority (2 of 3, 1 of 1) and the master is
called down after 1 s without an answer, so a killed master is replaced within a few seconds.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.support.private_services import START_TIMEOUT, PrivateRedis, redis_binary
from tests.support.processes import free_port

SERVICE = "pc-master"
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 5000


@dataclass
class Sentinels:
    master: PrivateRedis
    replica: PrivateRedis
    root: Path
    ports: list[int]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def addresses(self) -> str:
        """REDIS_SENTINELS."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self, quorum: int = 2) -> None:
        for n, port in enumerate(self.ports):
            config = self.root / f"sentinel-{n}.conf"
            config.write_text(
                f"port {port}\n"
                "bind 127.0.0.1\n"
                f"dir {self.root}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {self.master.port} {quorum}\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            with (self.root / f"sentinel-{n}.log").open("ab") as log:
                self.processes.append(
                    subprocess.Popen(
                        [str(redis_binary()), str(config), "--sentinel"],
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
        deadline = time.monotonic() + START_TIMEOUT
        # Ready once every sentinel knows the master, its replica and the other sentinels.
        while not all(self._sees_everyone(port) for port in self.ports):
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                raise RuntimeError(f"the sentinels did not come up: see {self.root}")
            time.sleep(0.1)

    def _sees_everyone(self, port: int) -> bool:
        client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1)
        try:
            state = client.sentinel_master(SERVICE)
            assert isinstance(state, dict)
            return int(state["num-slaves"]) >= 1 and int(state["num-other-sentinels"]) >= len(self.ports) - 1
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()

    def master_port(self) -> int | None:
        """The master's port as the first sentinel that answers names it."""
        for port in self.ports:
            client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1)
            try:
                address = client.sentinel_get_master_addr_by_name(SERVICE)
                if isinstance(address, (tuple, list)) and address:
                    return int(address[1])
            except (redis.RedisError, OSError):
                continue
            finally:
                client.close()
        return None

    def cut_replication(self) -> None:
        """From now on the master's writes do not reach the replica, as when a replica lags at a crash.

        Freezing the replica alone is not enough: the kernel keeps receiving the replication stream into
        its socket buffer, and the thawed replica reads it all. So the replica is frozen (it cannot
        reconnect) and the master drops the replication connection: its later writes stay in its own
        backlog and die with it. `thaw_replica` after killing the master."""
        self.replica.freeze()
        client = self.master.client()
        try:
            client.execute_command("CLIENT", "KILL", "TYPE", "replica")
        finally:
            client.close()

    def thaw_replica(self) -> None:
        self.replica.thaw()

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        self.processes.clear()


@contextlib.contextmanager
def redis_with_sentinels(sentinel_count: int = 3) -> Iterator[Sentinels]:
    """A master, its replica (in sync before this yields) and `sentinel_count` sentinels, all started."""
    root = Path(tempfile.mkdtemp(prefix="pc-sentinel-"))
    # Diskless replication waits 5 s by default for more replicas to join one transfer: there is one.
    master = PrivateRedis(root / "master", free_port(), extra_args=("--repl-diskless-sync-delay", "0"))
    replica_port = free_port()
    replica = PrivateRedis(
        root / "replica", replica_port, extra_args=("--replicaof", "127.0.0.1", str(master.port))
    )
    group = Sentinels(master, replica, root, [free_port() for _ in range(sentinel_count)])
    try:
        for server in (master, replica):
            server.root.mkdir()
            server.start()
        deadline = time.monotonic() + START_TIMEOUT
        while replica.client().info("replication").get("master_link_status") != "up":
            assert time.monotonic() < deadline, "the replica never synced with the master"
            time.sleep(0.05)
        group.start(quorum=sentinel_count // 2 + 1)
        yield group
    finally:
        group.stop()
        master.stop()
        replica.stop()
        shutil.rmtree(root, ignore_errors=True)
