"""The real PostgreSQL and Redis for tests: DATABASE_URL / REDIS_URL when set, else the embedded dev stack."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import secrets
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class BaseServices:
    """Server URLs for the session, and the embedded servers this session had to start (and so stops)."""

    env: dict[str, str]
    started: tuple[str, ...]


@cache
def dev_stack() -> ModuleType:
    """scripts/dev_stack.py, imported by path: scripts/ is not a package."""
    path = ROOT / "scripts" / "dev_stack.py"
    spec = importlib.util.spec_from_file_location("dev_stack", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dev_stack", module)  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def start_base_services() -> BaseServices:
    """DATABASE_URL and REDIS_URL of the servers; embedded ones are started only for unset variables."""
    database, cache_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if database and cache_url:
        return BaseServices({"DATABASE_URL": database, "REDIS_URL": cache_url}, ())
    stack = dev_stack().ensure_stack(ROOT)
    env = {key: stack.env[key] for key in ("DATABASE_URL", "REDIS_URL")}
    return BaseServices(env, tuple(stack.started))


def stop_base_services(services: BaseServices) -> None:
    """Stop only what this session started; servers someone else runs (or reuses) stay up."""
    if services.started:
        dev_stack().stop_services(ROOT, services.started)


def with_database(dsn: str, name: str) -> str:
    """The same server and credentials, another database; keeps URL DSNs as URLs."""
    if "://" not in dsn:
        return make_conninfo(dsn, dbname=name)
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path=f"/{name}"))


def database_name(dsn: str) -> str:
    return str(conninfo_to_dict(dsn)["dbname"])


def _new_database(base_dsn: str, template: str | None = None) -> str:
    name = f"pc_test_{os.getpid()}_{secrets.token_hex(4)}"
    statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
    with psycopg.connect(base_dsn, autocommit=True, connect_timeout=10) as conn:
        conn.execute(statement)
    return with_database(base_dsn, name)


def _migrate(dsn: str) -> None:
    """The core's own migration runner; on a thread of its own, so a caller inside an event loop works."""
    from core_server.db.migrate import apply_migrations
    from core_server.db.pool import open_pool

    async def migrate() -> None:
        pool = await open_pool(dsn, min_size=1, max_size=1)
        try:
            await apply_migrations(pool)
        finally:
            await pool.close()

    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, migrate()).result()


_templates: dict[str, str] = {}


def migrated_template(base_dsn: str) -> str:
    """A database with every migration applied, made once per test session (drop_templates ends it): the
    template each test database is copied from, so the migrations run once, not once per database."""
    if base_dsn not in _templates:
        dsn = _new_database(base_dsn)
        try:
            _migrate(dsn)
        except BaseException:
            drop_test_database(base_dsn, dsn)
            raise
        _templates[base_dsn] = dsn
    return database_name(_templates[base_dsn])


def drop_templates() -> None:
    """Drop the session's templates (at its end, before the servers it started stop)."""
    while _templates:
        base_dsn, dsn = _templates.popitem()
        drop_test_database(base_dsn, dsn)


def create_test_database(base_dsn: str) -> str:
    """A fresh, uniquely named database on the server of `base_dsn`, every migration already applied (a
    copy of `migrated_template`); returns its DSN."""
    return _new_database(base_dsn, migrated_template(base_dsn))


def drop_test_database(base_dsn: str, dsn: str) -> None:
    """Drop a database made by create_test_database, even while a stray process still holds it open."""
    name = database_name(dsn)
    if not name.startswith("pc_test_"):
        raise ValueError(f"refusing to drop {name!r}: not a test database")
    with psycopg.connect(base_dsn, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def new_redis_namespace() -> str:
    """A key prefix no other session uses, so tests share a Redis without seeing each other's keys."""
    return f"pctest{secrets.token_hex(5)}"


def purge_redis_namespace(redis_url: str, namespace: str) -> int:
    """Delete the keys a session left under its namespace; returns how many."""
    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        keys = list(client.scan_iter(match=f"{namespace}*", count=500))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
        return len(keys)
    finally:
        client.close()
