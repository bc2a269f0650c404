"""serve(): the gRPC server with health and reflection, background jobs, and graceful shutdown."""

from __future__ import annotations

import asyncio
import logging
import signal

import grpc
from connect.v1 import (
    api_key_service_pb2,
    api_key_service_pb2_grpc,
    charge_service_pb2,
    charge_service_pb2_grpc,
    checkout_service_pb2,
    checkout_service_pb2_grpc,
    idempotency_service_pb2,
    idempotency_service_pb2_grpc,
    merchant_service_pb2,
    merchant_service_pb2_grpc,
    webhook_service_pb2,
    webhook_service_pb2_grpc,
)
from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from core_server.bootstrap import Core, build_core
from core_server.config import Settings
from core_server.health_watch import watch_health
from core_server.logging_setup import configure_logging
from core_server.metrics import sample_queue_depth, serve_metrics, track_active_actors
from core_server.transport.interceptors import AuthTokenInterceptor
from core_server.transport.servicers.api_key_servicer import ApiKeyServicer
from core_server.transport.servicers.charge_servicer import ChargeServicer
from core_server.transport.servicers.checkout_servicer import CheckoutServicer
from core_server.transport.servicers.idempotency_servicer import IdempotencyServicer
from core_server.transport.servicers.merchant_servicer import MerchantServicer
from core_server.transport.servicers.webhook_servicer import WebhookServicer

logger = logging.getLogger(__name__)

SERVICE_NAMES = (
    charge_service_pb2.DESCRIPTOR.services_by_name["ChargeService"].full_name,
    checkout_service_pb2.DESCRIPTOR.services_by_name["CheckoutService"].full_name,
    merchant_service_pb2.DESCRIPTOR.services_by_name["MerchantService"].full_name,
    api_key_service_pb2.DESCRIPTOR.services_by_name["ApiKeyService"].full_name,
    idempotency_service_pb2.DESCRIPTOR.services_by_name["IdempotencyService"].full_name,
    webhook_service_pb2.DESCRIPTOR.services_by_name["WebhookService"].full_name,
)


def build_server(core: Core) -> tuple[grpc.aio.Server, health.aio.HealthServicer]:
    interceptors = [AuthTokenInterceptor(core.settings.auth_token)] if core.settings.auth_token else []
    server = grpc.aio.server(interceptors=interceptors)
    base = core.settings.checkout_base_url
    charge_service_pb2_grpc.add_ChargeServiceServicer_to_server(ChargeServicer(core.charges, base), server)
    checkout_service_pb2_grpc.add_CheckoutServiceServicer_to_server(CheckoutServicer(core.checkout), server)
    merchant_service_pb2_grpc.add_MerchantServiceServicer_to_server(
        MerchantServicer(core.merchants, core.runner), server
    )
    api_key_service_pb2_grpc.add_ApiKeyServiceServicer_to_server(
        ApiKeyServicer(core.api_keys, core.runner, core.answer_box), server
    )
    idempotency_service_pb2_grpc.add_IdempotencyServiceServicer_to_server(IdempotencyServicer(core.runner), server)
    webhook_service_pb2_grpc.add_WebhookServiceServicer_to_server(
        WebhookServicer(core.webhooks, core.events, core.runner), server
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    return server, health_servicer


async def serve(settings: Settings) -> None:
    core = await build_core(settings)
    server, health_servicer = build_server(core)
    port = server.add_insecure_port(settings.grpc_addr)
    if port == 0:
        raise RuntimeError(f"cannot bind {settings.grpc_addr}")
    await server.start()
    metrics_server = serve_metrics(settings.metrics_addr)
    track_active_actors(core.charge_actors.name, lambda: core.charge_actors.active_count)
    jobs = [
        asyncio.create_task(sample_queue_depth(core.deliveries.pending_count), name="metrics-sampler"),
        asyncio.create_task(core.expiration.run_forever(), name="expiration-sweep"),
        asyncio.create_task(core.authorizations.run_forever(), name="authorization-sweep"),
        asyncio.create_task(watch_health(core, health_servicer, SERVICE_NAMES), name="health-watch"),
        asyncio.create_task(core.dispatcher.run_forever(), name="webhook-dispatcher"),
    ]
    logger.info("core listening on %s", settings.grpc_addr)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

    logger.info("core shutting down")
    await health_servicer.enter_graceful_shutdown()
    for job in jobs:
        job.cancel()
    # In-flight RPCs get the grace period (SHUTDOWN_GRACE_SECONDS); then actors release their leases.
    await server.stop(settings.shutdown_grace_seconds)
    await asyncio.gather(*jobs, return_exceptions=True)
    await core.close()
    if metrics_server is not None:
        metrics_server.shutdown()
    logger.info("core stopped")


def main() -> None:
    configure_logging("core")
    settings = Settings.from_env()
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - uvloop is optional on platforms without it
        pass
    asyncio.run(serve(settings))
