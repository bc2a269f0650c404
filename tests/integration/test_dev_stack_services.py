"""The dev stack: the fixtures give real PostgreSQL and Redis; run_stack reports a dead child."""

from __future__ import annotations

import base64
import os
import subprocess
import sys

import psycopg
import pytest
import redis

from tests.support.processes import free_port
from tests.support.services import ROOT, database_name

pytestmark = pytest.mark.integration


def test_database_url_is_a_fresh_working_database(database_url: str, base_services: dict[str, str]) -> None:
    with psycopg.connect(database_url, connect_timeout=10) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        assert conn.execute("SELECT current_database()").fetchone() == (database_name(database_url),)
    assert database_name(database_url).startswith("pc_test_")
    assert database_name(database_url) != database_name(base_services["DATABASE_URL"])


def test_redis_url_answers_ping_and_namespace_is_per_session(redis_url: str, redis_namespace: str) -> None:
    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        assert client.ping() is True
        key = f"{redis_namespace}:probe"
        client.set(key, "1", ex=60)
        assert client.get(key) == b"1"
    finally:
        client.close()
    assert redis_namespace.startswith("pctest")


def test_stack_env_carries_what_the_processes_require(stack_env: dict[str, str], database_url: str) -> None:
    assert stack_env["DATABASE_URL"] == database_url
    assert len(base64.b64decode(stack_env["DATA_ENCRYPTION_KEY"], validate=True)) == 32
    assert stack_env["JWT_SIGNING_KEY"] and stack_env["REDIS_NAMESPACE"]


def test_run_stack_fails_clearly_when_a_child_dies(base_services: dict[str, str]) -> None:
    env = {
        **os.environ,
        **base_services,
        "CORE_GRPC_ADDR": f"127.0.0.1:{free_port()}",
        "DATA_ENCRYPTION_KEY": "not base64",  # the core refuses to start
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_stack.py"), "--only", "core", "--ready-timeout", "60"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error: core did not start: core exited with code" in result.stderr
    assert "last output:" in result.stderr
