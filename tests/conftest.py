"""Session fixtures for the real PostgreSQL and Redis; lazy, so unit tests start nothing."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.services import (
    BaseServices,
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


def _module_list(name: str) -> tuple[str, ...]:
    """The module paths listed in tests/`name`, in file order (comments and blank lines left out)."""
    lines = (Path(__file__).parent / name).read_text().splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


SERIAL_MODULES = frozenset(_module_list("serial_modules.txt"))
"""Modules run alone after the parallel part of `make test`; the file says why each is there."""

LONG_MODULES = _module_list("long_modules.txt")
"""The longest modules, longest first: the parallel part hands them out before the rest (the file)."""

_TIERS = ("tests/e2e/", "tests/integration/")

_shared_services: BaseServices | None = None


def _queue_place(module: str) -> tuple[int, int]:
    """Where a module goes in the parallel part's queue: the long ones in their listed order, then the other
    e2e modules, integration, unit — the short ones last, so both workers run out of work at about the
    same time (scripts/test.sh turns off pytest-xdist's own order, most tests first)."""
    if module in LONG_MODULES:
        return (0, LONG_MODULES.index(module))
    tier = next((k for k, prefix in enumerate(_TIERS) if module.startswith(prefix)), len(_TIERS))
    return (1, tier)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.split("::", 1)[0] in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)
    # Stable: each module's tests keep their order, and every worker collects the same list.
    items.sort(key=lambda item: _queue_place(item.nodeid.split("::", 1)[0]))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist the controller starts the embedded servers once and hands their URLs to every
    worker through the environment, so no worker stops servers another one is still using."""
    global _shared_services
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", default=None):
        _shared_services = start_base_services()
        os.environ.update(_shared_services.env)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _shared_services
    if _shared_services is not None:
        stop_base_services(_shared_services)
        _shared_services = None


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
