"""The real PostgreSQL and Redis for tests: from DATABASE_URL / REDIS_URL, else the embedded dev stack."""

from __future__ import annotations

import importlib.util
import os
import uuid
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def _dev_stack() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_stack", ROOT / "scripts" / "dev_stack.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def base_services() -> dict[str, str]:
    database = os.environ.get("DATABASE_URL")
    redis = os.environ.get("REDIS_URL")
    if database and redis:
        return {"DATABASE_URL": database, "REDIS_URL": redis}
    stack = _dev_stack()
    return {
        "DATABASE_URL": database or stack.ensure_postgres(),
        "REDIS_URL": redis or stack.ensure_redis(),
    }


def _with_database(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def create_test_database(base_dsn: str) -> str:
    """A fresh database per session, so tests never touch data they did not create."""
    name = f"pc_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(base_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # generated name, not input
    return _with_database(base_dsn, name)


def drop_test_database(base_dsn: str, dsn: str) -> None:
    name = urlsplit(dsn).path.lstrip("/")
    with psycopg.connect(base_dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # generated name, not input


def new_redis_namespace() -> str:
    return f"pctest{uuid.uuid4().hex[:10]}"
