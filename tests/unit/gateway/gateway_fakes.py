"""Fakes for gateway unit tests: a scripted core (stubs with async methods) and an in-memory rate counter."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from connect.v1 import (
    api_key_pb2,
    api_key_service_pb2,
    common_pb2,
    idempotency_service_pb2,
    merchant_pb2,
    merchant_service_pb2,
)
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2
from sanic import Sanic

from http_gateway.core_client.grpc_clients import CoreClients

SIGNING_KEY = "unit-test-signing-key-of-sufficient-length"


def rpc_error(
    code: grpc.StatusCode,
    message: str = "",
    *,
    reason: str | None = None,
    type: str | None = None,
    param: str | None = None,
) -> grpc.aio.AioRpcError:
    """An AioRpcError shaped like the core's: rich status with one ErrorInfo when `reason` is given."""
    trailers: list[tuple[str, str | bytes]] = []
    if reason is not None:
        metadata = {"type": type} if type else {}
        if param:
            metadata["param"] = param
        info = error_details_pb2.ErrorInfo(reason=reason, domain="connect.v1", metadata=metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=code.value[0], message=message, details=[detail])
        trailers.append(("grpc-status-details-bin", status.SerializeToString()))
    return grpc.aio.AioRpcError(
        code=code,
        initial_metadata=grpc.aio.Metadata(),
        trailing_metadata=grpc.aio.Metadata(*trailers),
        details=message,
    )


class FakeCall:
    """Awaitable like grpc.aio.UnaryUnaryCall, with trailing metadata readable after the await."""

    def __init__(self, outcome: Any, trailers: tuple[tuple[str, str], ...]) -> None:
        self._outcome = outcome
        self._trailers = trailers

    def __await__(self) -> Any:
        return self._result().__await__()

    async def _result(self) -> Any:
        if isinstance(self._outcome, BaseException):
            raise self._outcome
        return self._outcome

    async def trailing_metadata(self) -> grpc.aio.Metadata:
        return grpc.aio.Metadata(*self._trailers)


@dataclass
class Recorded:
    message: Any
    timeout: float | None
    metadata: list[tuple[str, str]]


class FakeMethod:
    """Answers scripted outcomes in order (the last one repeats), else the default outcome."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[Recorded] = []
        self._outcomes: deque[tuple[Any, tuple[tuple[str, str], ...]]] = deque()
        self._default: tuple[Any, tuple[tuple[str, str], ...]] | None = None

    def by_default(self, response: Any) -> FakeMethod:
        self._default = (response, ())
        return self

    def returns(self, response: Any, *, replayed: bool = False) -> FakeMethod:
        trailers = (("idempotent-replayed", "true"),) if replayed else ()
        self._outcomes.append((response, trailers))
        return self

    def raises(self, error: BaseException) -> FakeMethod:
        self._outcomes.append((error, ()))
        return self

    def __call__(self, message: Any, *, timeout: float | None = None, metadata: Any = None) -> FakeCall:
        self.calls.append(Recorded(message, timeout, list(metadata or [])))
        if self._outcomes:
            outcome = self._outcomes[0] if len(self._outcomes) == 1 else self._outcomes.popleft()
        elif self._default is not None:
            outcome = self._default
        else:
            raise AssertionError(f"unexpected core call {self.name}")
        return FakeCall(*outcome)

    @property
    def last(self) -> Any:
        return self.calls[-1].message


class FakeStub:
    def __init__(self) -> None:
        self._methods: dict[str, FakeMethod] = {}

    def __getattr__(self, name: str) -> FakeMethod:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._methods.setdefault(name, FakeMethod(name))


def fake_core() -> CoreClients:
    core = CoreClients(
        merchants=FakeStub(),
        api_keys=FakeStub(),
        charges=FakeStub(),
        checkout=FakeStub(),
        idempotency=FakeStub(),
        health=FakeStub(),
        webhooks=FakeStub(),
    )
    serving = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
    core.health.Check.by_default(serving)
    core.idempotency.CheckIdempotencyKey.by_default(idempotency_service_pb2.CheckIdempotencyKeyResponse())
    # Each dashboard call reads the merchant's token version (DESIGN §10.9): version 0, nothing revoked.
    core.merchants.GetMerchant.by_default(
        merchant_service_pb2.GetMerchantResponse(merchant=merchant_pb2.Merchant(id="acct_test"))
    )
    return core


def authenticates(
    core: CoreClients,
    *,
    merchant_id: str = "acct_test",
    environment: int = common_pb2.ENVIRONMENT_TEST,
    kind: int = api_key_pb2.API_KEY_KIND_SECRET,
) -> None:
    core.api_keys.AuthenticateApiKey.by_default(
        api_key_service_pb2.AuthenticateApiKeyResponse(
            merchant_id=merchant_id,
            environment=environment,  # type: ignore[arg-type]
            kind=kind,  # type: ignore[arg-type]
            key_id="key_1",
        )
    )


class FakeRedis:
    """Enough of redis.asyncio.Redis for RateLimiter and /healthz: a counting (INCRBY) script and ping."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.down = False

    def register_script(self, script: str) -> Any:
        async def run(keys: list[str], args: list[Any]) -> int:
            if self.down:
                raise ConnectionError("redis down")
            # The rate limiter's lease: INCRBY args[1] (one position when no size is given).
            self.counts[keys[0]] = self.counts.get(keys[0], 0) + (int(args[1]) if len(args) > 1 else 1)
            return self.counts[keys[0]]

        return run

    async def ping(self) -> bool:
        if self.down:
            raise ConnectionError("redis down")
        return True


@contextlib.asynccontextmanager
async def serve(app: Sanic, client_address: str = "203.0.113.9") -> AsyncIterator[httpx.AsyncClient]:
    """Run the app's ASGI lifespan (listeners) and yield an httpx client wired to it in-process."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}}
    lifespan = asyncio.create_task(app(scope, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    started = await outbox.get()
    assert started["type"] == "lifespan.startup.complete", started
    transport = httpx.ASGITransport(app=app, client=(client_address, 40000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
            yield client
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await outbox.get()
        await lifespan
