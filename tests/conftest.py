"""Session fixtures for the real services; nothing starts unless a test asks for it."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator

import pytest

from tests.support.services import base_services, create_test_database, drop_test_database, new_redis_namespace


@pytest.fixture(scope="session")
def services() -> dict[str, str]:
    return base_services()


@pytest.fixture(scope="session")
def database_url(services: dict[str, str]) -> Iterator[str]:
    dsn = create_test_database(services["DATABASE_URL"])
    try:
        yield dsn
    finally:
        drop_test_database(services["DATABASE_URL"], dsn)


@pytest.fixture(scope="session")
def redis_url(services: dict[str, str]) -> str:
    return services["REDIS_URL"]


@pytest.fixture(scope="session")
def redis_namespace() -> str:
    return new_redis_namespace()


@pytest.fixture(scope="session")
def stack_env(database_url: str, redis_url: str, redis_namespace: str) -> dict[str, str]:
    """The env of core and gateway processes started by e2e tests."""
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "REDIS_NAMESPACE": redis_namespace,
        "JWT_SIGNING_KEY": "e2e-signing-key-e2e-signing-key-e2e-signing-key",
        "DATA_ENCRYPTION_KEY": base64.b64encode(os.urandom(32)).decode(),
        "EXPIRY_INTERVAL_SECONDS": "300",
        # Every e2e request comes from 127.0.0.1: the per-address limit would throttle the suite itself.
        "RATE_LIMIT_ANONYMOUS": "100000",
        "LOG_LEVEL": "INFO",
    }
