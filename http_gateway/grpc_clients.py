"""One grpc.aio channel to the core per worker, its stubs, and the single way handlers call them."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import grpc
from connect.v1 import (
    api_key_service_pb2_grpc,
    charge_service_pb2_grpc,
    checkout_service_pb2_grpc,
    idempotency_service_pb2_grpc,
    merchant_service_pb2_grpc,
    webhook_service_pb2_grpc,
)
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from http_gateway.config import Settings, core_target
from http_gateway.errors import api_error_from_rpc, should_retry

logger = logging.getLogger(__name__)

ResponseT = TypeVar("ResponseT", bound=Message)

# Trailing metadata the core sets when it answers from a stored idempotent result.
REPLAYED_KEY = "idempotent-replayed"
# Jittered pause before the single retry, so two gateways do not retry in lockstep.
RETRY_PAUSE_SECONDS = (0.05, 0.2)
# gRPC's reconnect back-off grows to 120 s by default: a core back after a long outage would go unused
# (every call failing fast with UNAVAILABLE) for up to two minutes. One second caps that wait; a
# refused connection attempt is cheap.
RECONNECT_BACKOFF_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


@dataclass(slots=True)
class CoreClients:
    """The stubs of every core service, sharing one channel (HTTP/2 multiplexes the calls)."""

    merchants: Any
    api_keys: Any
    charges: Any
    checkout: Any
    idempotency: Any
    health: Any
    webhooks: Any = None
    channel: grpc.aio.Channel | None = None

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close(grace=1.0)


def open_core_clients(settings: Settings) -> CoreClients:
    """Build the channel lazily connected: the gateway starts even while the core is still booting."""
    target, options = core_target(settings.core_grpc_addr)
    options = [
        *options,
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        *RECONNECT_BACKOFF_OPTIONS,
    ]
    if settings.core_tls_ca_file:
        creds = grpc.ssl_channel_credentials(Path(settings.core_tls_ca_file).read_bytes())
        channel = grpc.aio.secure_channel(target, creds, options=options)
    else:
        channel = grpc.aio.insecure_channel(target, options=options)
    return CoreClients(
        merchants=merchant_service_pb2_grpc.MerchantServiceStub(channel),
        api_keys=api_key_service_pb2_grpc.ApiKeyServiceStub(channel),
        charges=charge_service_pb2_grpc.ChargeServiceStub(channel),
        checkout=checkout_service_pb2_grpc.CheckoutServiceStub(channel),
        idempotency=idempotency_service_pb2_grpc.IdempotencyServiceStub(channel),
        health=health_pb2_grpc.HealthStub(channel),
        webhooks=webhook_service_pb2_grpc.WebhookServiceStub(channel),
        channel=channel,
    )


def core_metadata(settings: Settings, request_id: str) -> list[tuple[str, str]]:
    """The request id for the core's logs, and the internal token when the core demands one."""
    metadata = [("x-request-id", request_id)]
    if settings.core_auth_token:
        metadata.append(("authorization", f"Bearer {settings.core_auth_token}"))
    return metadata


@dataclass(frozen=True, slots=True)
class CoreReply(Generic[ResponseT]):
    """A core answer and whether it was replayed from a stored idempotent result."""

    response: ResponseT
    replayed: bool


async def call_core(
    settings: Settings,
    method: Callable[..., Any],
    message: Message,
    *,
    request_id: str,
    is_read: bool,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> CoreReply[Any]:
    """Call one unary RPC with the deadline, request id and auth metadata; retry per errors.FALLBACK.

    The retry shares the original deadline, so a slow core never makes a request take longer than
    CORE_TIMEOUT_SECONDS in total. Failures leave as ApiError.
    """
    metadata = core_metadata(settings, request_id)
    deadline = time.monotonic() + settings.core_timeout
    attempt = 0
    while True:
        attempt += 1
        try:
            call = method(message, timeout=max(deadline - time.monotonic(), 0.001), metadata=metadata)
            response = await call
            trailers = await call.trailing_metadata()
            return CoreReply(response, _is_replayed(trailers))
        except grpc.aio.AioRpcError as err:
            pause = random.uniform(*RETRY_PAUSE_SECONDS)
            if attempt == 1 and should_retry(err, is_read=is_read) and deadline - time.monotonic() > pause:
                logger.info("retrying core call", extra={"grpc_code": err.code().name})
                await sleep(pause)
                continue
            raise api_error_from_rpc(err) from None


def _is_replayed(trailers: Any) -> bool:
    for key, value in trailers or ():
        if key == REPLAYED_KEY:
            text = value.decode() if isinstance(value, bytes) else str(value)
            return text.strip().lower() == "true"
    return False


async def core_is_serving(clients: CoreClients, metadata: list[tuple[str, str]], timeout: float) -> bool:
    """gRPC health check of the whole core (service ""), which the core reports SERVING only when ready."""
    request = health_pb2.HealthCheckRequest(service="")
    try:
        reply = await clients.health.Check(request, timeout=timeout, metadata=metadata)
    except grpc.aio.AioRpcError:
        return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
