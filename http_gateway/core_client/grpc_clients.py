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
    catalog_service_pb2_grpc,
    charge_service_pb2_grpc,
    checkout_service_pb2_grpc,
    cli_session_service_pb2_grpc,
    customer_service_pb2_grpc,
    idempotency_service_pb2_grpc,
    ledger_service_pb2_grpc,
    merchant_service_pb2_grpc,
    portal_service_pb2_grpc,
    subscription_service_pb2_grpc,
    test_clock_service_pb2_grpc,
    test_reset_service_pb2_grpc,
    webhook_service_pb2_grpc,
)
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from http_gateway.config import Settings, core_addresses, core_target
from http_gateway.core_client.affinity import ranked
from http_gateway.core_client.load_shedding import CoreCallGate, overloaded
from http_gateway.edge.errors import FALLBACK, OVERLOADED, api_error_from_rpc, error_info, should_retry

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
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    *RECONNECT_BACKOFF_OPTIONS,
]
# A pinned core is used while its channel is connected or idle (it connects on the call); one that is
# connecting or failing after a drop is passed over until it is back.
_USABLE = (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.IDLE)


@dataclass(slots=True)
class PinnedCore:
    """One core's own channel, and each method of the balanced stubs as this channel's twin."""

    address: str
    channel: grpc.aio.Channel
    twins: dict[Any, Any]

    def usable(self) -> bool:
        return self.channel.get_state(try_to_connect=True) in _USABLE


@dataclass(slots=True)
class CoreClients:
    """The stubs of every core service on one channel balanced over the listed cores (HTTP/2 multiplexes
    the calls); with several cores, also each core's own channel, for the calls `pinned` to one."""

    merchants: Any
    api_keys: Any
    charges: Any
    checkout: Any
    idempotency: Any
    health: Any
    webhooks: Any = None
    test_clock: Any = None
    catalog: Any = None
    customers: Any = None
    subscriptions: Any = None  # SubscriptionService: subscriptions, items, previews and invoices
    portal: Any = None  # PortalService: portal sessions and the portal pages' data and changes
    ledger: Any = None  # LedgerService: the balance and its balance transactions
    cli_sessions: Any = None  # CliSessionService: `payconnect listen` sessions and their event stream
    test_reset: Any = None  # TestResetService: the TEST reset
    channel: grpc.aio.Channel | None = None
    cores: tuple[PinnedCore, ...] = ()  # one per address when CORE_GRPC_ADDR lists several
    addresses: tuple[str, ...] = ()

    def pinned(self, method: Any, entity_id: str) -> Any:
        """`method` on the core that serves `entity_id` (affinity.py), or balanced when none is usable."""
        for index in ranked(entity_id, self.addresses):
            core = self.cores[index]
            if core.usable():
                return core.twins[method]
        return method

    async def close(self) -> None:
        for core in self.cores:
            await core.channel.close(grace=1.0)
        if self.channel is not None:
            await self.channel.close(grace=1.0)


def open_core_clients(settings: Settings) -> CoreClients:
    """Build the channels lazily connected: the gateway starts even while the core is still booting.

    One channel balances round-robin over every listed core; with several, each core also gets its own
    channel, for the calls pinned to the core that serves their entity.
    """
    target, options = core_target(settings.core_grpc_addr)
    clients = _clients(_open_channel(settings, target, [*options, *CHANNEL_OPTIONS]))
    addresses = core_addresses(settings.core_grpc_addr)
    if len(addresses) > 1:
        clients.addresses = tuple(addresses)
        clients.cores = tuple(_pinned_core(settings, clients, address) for address in addresses)
    return clients


def _open_channel(settings: Settings, target: str, options: list[tuple[str, Any]]) -> grpc.aio.Channel:
    if settings.core_tls_ca_file:
        creds = grpc.ssl_channel_credentials(Path(settings.core_tls_ca_file).read_bytes())
        return grpc.aio.secure_channel(target, creds, options=options)
    return grpc.aio.insecure_channel(target, options=options)


# Each CoreClients field that holds a stub, and the stub's class: one list for the balanced clients and
# for every pinned core's twins.
_STUB_CLASSES: dict[str, Any] = {
    "merchants": merchant_service_pb2_grpc.MerchantServiceStub,
    "api_keys": api_key_service_pb2_grpc.ApiKeyServiceStub,
    "charges": charge_service_pb2_grpc.ChargeServiceStub,
    "checkout": checkout_service_pb2_grpc.CheckoutServiceStub,
    "idempotency": idempotency_service_pb2_grpc.IdempotencyServiceStub,
    "health": health_pb2_grpc.HealthStub,
    "webhooks": webhook_service_pb2_grpc.WebhookServiceStub,
    "test_clock": test_clock_service_pb2_grpc.TestClockServiceStub,
    "catalog": catalog_service_pb2_grpc.CatalogServiceStub,
    "customers": customer_service_pb2_grpc.CustomerServiceStub,
    "subscriptions": subscription_service_pb2_grpc.SubscriptionServiceStub,
    "portal": portal_service_pb2_grpc.PortalServiceStub,
    "ledger": ledger_service_pb2_grpc.LedgerServiceStub,
    "cli_sessions": cli_session_service_pb2_grpc.CliSessionServiceStub,
    "test_reset": test_reset_service_pb2_grpc.TestResetServiceStub,
}


def _clients(channel: grpc.aio.Channel) -> CoreClients:
    return CoreClients(**{name: stub(channel) for name, stub in _STUB_CLASSES.items()}, channel=channel)


def _pinned_core(settings: Settings, balanced: CoreClients, address: str) -> PinnedCore:
    """`address`'s own channel and stubs; every balanced method maps to its twin on this channel."""
    channel = _open_channel(settings, address, list(CHANNEL_OPTIONS))
    own = _clients(channel)
    twins = {
        method: getattr(getattr(own, stub), name)
        for stub in _STUB_CLASSES
        for name, method in vars(getattr(balanced, stub)).items()
    }
    return PinnedCore(address, channel, twins)


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
    retry_method: Callable[..., Any] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    gate: CoreCallGate | None = None,
) -> CoreReply[Any]:
    """Call one unary RPC with the deadline, request id and auth metadata; retry per errors.FALLBACK.

    The retry shares the original deadline, so a slow core never makes a request take longer than
    CORE_TIMEOUT_SECONDS in total; it goes through `retry_method` when given (a call pinned to one core
    retries balanced, so a core that just died is not asked twice). Failures leave as ApiError; with a
    `gate` the call first takes one of its slots, and a request past its bounds is answered 503 at once.
    """
    if gate is None:
        return await _call(settings, method, message, request_id, is_read, retry_method, sleep)
    async with gate.slot(request_id):
        return await _call(settings, method, message, request_id, is_read, retry_method, sleep)


async def _call(
    settings: Settings,
    method: Callable[..., Any],
    message: Message,
    request_id: str,
    is_read: bool,
    retry_method: Callable[..., Any] | None,
    sleep: Callable[[float], Awaitable[None]],
) -> CoreReply[Any]:
    metadata = core_metadata(settings, request_id)
    deadline = time.monotonic() + settings.core_timeout
    attempt = 0
    while True:
        attempt += 1
        try:
            target = method if attempt == 1 else (retry_method or method)
            call = target(message, timeout=max(deadline - time.monotonic(), 0.001), metadata=metadata)
            response = await call
            trailers = await call.trailing_metadata()
            return CoreReply(response, _is_replayed(trailers))
        except grpc.aio.AioRpcError as err:
            pause = random.uniform(*RETRY_PAUSE_SECONDS)
            if attempt == 1 and should_retry(err, is_read=is_read) and deadline - time.monotonic() > pause:
                logger.info("retrying core call", extra={"grpc_code": err.code().name})
                await sleep(pause)
                continue
            if FALLBACK.get(err.code()) is OVERLOADED and error_info(err) is None:
                raise overloaded("core") from None
            raise api_error_from_rpc(err) from None


def _is_replayed(trailers: Any) -> bool:
    for key, value in trailers or ():
        if key == REPLAYED_KEY:
            text = value.decode() if isinstance(value, bytes) else str(value)
            return text.strip().lower() == "true"
    return False


async def core_is_serving(
    clients: CoreClients,
    metadata: list[tuple[str, str]],
    timeout: float,  # noqa: ASYNC109 - the gRPC call's own deadline, not a wait of ours
) -> bool:
    """gRPC health check of the whole core (service ""), which the core reports SERVING only when ready."""
    request = health_pb2.HealthCheckRequest(service="")
    try:
        reply = await clients.health.Check(request, timeout=timeout, metadata=metadata)
    except grpc.aio.AioRpcError:
        return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
