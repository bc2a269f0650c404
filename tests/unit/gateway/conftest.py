"""Fixtures for gateway unit tests: the real app factory wired to a scripted core and in-memory counters."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sanic import Sanic

from http_gateway.app import create_app
from http_gateway.config import Settings
from http_gateway.core_client.grpc_clients import CoreClients
from tests.unit.gateway.gateway_fakes import SIGNING_KEY, FakeRedis, authenticates, fake_core, serve


@pytest.fixture(autouse=True)
def _sanic_test_mode() -> None:
    # Each test builds a new app with the same name; test mode lets Sanic's registry accept that.
    Sanic.test_mode = True


@pytest.fixture
def settings() -> Settings:
    return Settings(jwt_signing_key=SIGNING_KEY, public_base_url="https://api.example.test", core_timeout=2.0)


@pytest.fixture
def core() -> CoreClients:
    core = fake_core()
    authenticates(core)
    return core


@pytest.fixture
def redis() -> FakeRedis:
    return FakeRedis()


@pytest.fixture
def app(settings: Settings, core: CoreClients, redis: FakeRedis) -> Sanic:
    return create_app(settings, core=core, redis=redis)


@pytest.fixture
async def client(app: Sanic) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(app) as client:
        yield client
