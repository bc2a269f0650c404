"""Session fixtures for the real PostgreSQL and Redis; lazy, so unit tests start nothing."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from tests.support.services import (
    create_test_database,
    drop_templates,
    drop_test_database,
    new_redis_namespace,
    purge_redis_namespace,
    start_base_services,
    stop_base_services,
)

# Fixed test secrets: logs and failures reproduce across runs; never used outside tests.
TEST_JWT_SIGNING_KEY = "test-signing-key-test-signing-key-test-signing-key"
TEST_DATA_ENCRYPTION_KEY = base64.b64encode(bytes(range(32))).decode("ascii")


@pytest.fixture(scope="session")
def base_services() -> Iterator[dict[str, str]]:
    """DATABASE_URL and REDIS_URL of the servers (from the env, else the embedded dev stack)."""
    services = start_base_services()
    try:
        yield dict(services.env)
    finally:
        try:
            drop_templates()
        finally:
            stop_base_services(services)


@pytest.fixture(scope="session")
def services(base_services: dict[str, str]) -> dict[str, str]:
    """Alias of base_services, kept for tests written against the first name."""
    return base_services


@pytest.fixture(scope="session")
def database_url(base_services: dict[str, str]) -> Iterator[str]:
    """A fresh database for this session, dropped at the end, so tests never touch data they did not make."""
    dsn = create_test_database(base_services["DATABASE_URL"])
    try:
        yield dsn
    finally:
        drop_test_database(base_services["DATABASE_URL"], dsn)


@pytest.fixture(scope="session")
def redis_url(base_services: dict[str, str]) -> str:
    return base_services["REDIS_URL"]


@pytest.fixture(scope="session")
def redis_namespace(redis_url: str) -> Iterator[str]:
    """A key prefix of this session alone; its keys are deleted at the end."""
    namespace = new_redis_namespace()
    try:
        yield namespace
    finally:
        purge_redis_namespace(redis_url, namespace)


@pytest.fixture(scope="session")
def stack_env(database_url: str, redis_url: str, redis_namespace: str) -> dict[str, str]:
    """The environment of core and gateway processes started by tests."""
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "REDIS_NAMESPACE": redis_namespace,
        "JWT_SIGNING_KEY": TEST_JWT_SIGNING_KEY,
        "DATA_ENCRYPTION_KEY": TEST_DATA_ENCRYPTION_KEY,
        "EXPIRY_INTERVAL_SECONDS": "300",
        # Every e2e request comes from 127.0.0.1: the per-address limit would throttle the suite itself.
        "RATE_LIMIT_ANONYMOUS": "100000",
        "LOG_LEVEL": "INFO",
        # Webhook receivers of the suite listen on 127.0.0.1: TEST endpoints may target loopback only so.
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
    }
