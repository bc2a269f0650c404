"""serve(): the gRPC server with health and reflection, background jobs, and graceful shutdown."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import grpc
from connect.gc_tuning import freeze_startup_objects, tune_for_serving
from connect.v1 import (
    api_key_service_pb2,
    api_key_service_pb2_grpc,
    catalog_service_pb2,
    catalog_service_pb2_grpc,
    charge_service_pb2,
    charge_service_pb2_grpc,
    checkout_service_pb2,
    checkout_service_pb2_grpc,
    cli_session_service_pb2,
    cli_session_service_pb2_grpc,
    customer_service_pb2,
    customer_service_pb2_grpc,
    idempotency_service_pb2,
    idempotency_service_pb2_grpc,
    ledger_service_pb2,
    ledger_service_pb2_grpc,
    merchant_service_pb2,
    merchant_service_pb2_grpc,
    portal_service_pb2,
    portal_service_pb2_grpc,
    subscription_service_pb2,
    subscription_service_pb2_grpc,
    test_clock_service_pb2,
    test_clock_service_pb2_grpc,
    test_reset_service_pb2,
    test_reset_service_pb2_grpc,
    webhook_service_pb2,
    webhook_service_pb2_grpc,
)
from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from core_server.billing.transport.catalog_servicer import CatalogServicer
from core_server.billing.transport.customer_servicer import CustomerServicer
from core_server.billing.transport.portal_servicer import PortalServicer
from core_server.billing.transport.subscription_servicer import SubscriptionServicer
from core_server.bootstrap import Core, build_core
from core_server.config import Settings
from core_server.developer_tools.transport.cli_session_servicer import CliSessionServicer
from core_server.developer_tools.transport.sandbox_reset_servicer import TestResetServicer
from core_server.health_watch import watch_health
from core_server.kernel.transport.idempotency_servicer import IdempotencyServicer
from core_server.kernel.transport.sandbox_clock_servicer import TestClockServicer
from core_server.ledger.transport.ledger_servicer import LedgerServicer
from core_server.logging_setup import configure_logging
from core_server.merchants.transport.api_key_servicer import ApiKeyServicer
from core_server.merchants.transport.merchant_servicer import MerchantServicer
from core_server.metrics import sample_queue_depth, serve_metrics, track_active_actors
from core_server.payments.transport.charge_servicer import ChargeServicer
from core_server.payments.transport.checkout_servicer import CheckoutServicer
from core_server.rpc.interceptors import AuthTokenInterceptor
from core_server.rpc.load_shedding import InFlightLimit
from core_server.rpc.method_table import MethodTable
from core_server.task_stop import cancel_and_wait
from core_server.webhooks.application.webhook_dispatcher import (
    SHUTDOWN_GRACE_SECONDS as DISPATCH_GRACE_SECONDS,
)
from core_server.webhooks.transport.webhook_servicer import WebhookServicer

logger = logging.getLogger(__name__)

SERVICE_NAMES = (
    catalog_service_pb2.DESCRIPTOR.services_by_name["CatalogService"].full_name,
    charge_service_pb2.DESCRIPTOR.services_by_name["ChargeService"].full_name,
    checkout_service_pb2.DESCRIPTOR.services_by_name["CheckoutService"].full_name,
    merchant_service_pb2.DESCRIPTOR.services_by_name["MerchantService"].full_name,
    api_key_service_pb2.DESCRIPTOR.services_by_name["ApiKeyService"].full_name,
    idempotency_service_pb2.DESCRIPTOR.services_by_name["IdempotencyService"].full_name,
    webhook_service_pb2.DESCRIPTOR.services_by_name["WebhookService"].full_name,
    test_clock_service_pb2.DESCRIPTOR.services_by_name["TestClockService"].full_name,
    customer_service_pb2.DESCRIPTOR.services_by_name["CustomerService"].full_name,
    subscription_service_pb2.DESCRIPTOR.services_by_name["SubscriptionService"].full_name,
    ledger_service_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name,
    portal_service_pb2.DESCRIPTOR.services_by_name["PortalService"].full_name,
    cli_session_service_pb2.DESCRIPTOR.services_by_name["CliSessionService"].full_name,
    test_reset_service_pb2.DESCRIPTOR.services_by_name["TestResetService"].full_name,
)


def build_server(core: Core) -> tuple[grpc.aio.Server, health.aio.HealthServicer]:
    interceptors: list[grpc.aio.ServerInterceptor] = []
    if core.settings.auth_token:
        interceptors.append(AuthTokenInterceptor(core.settings.auth_token))
    # After the token check: a refused caller takes no slot.
    interceptors.append(InFlightLimit(core.settings.max_in_flight_rpcs))
    server = grpc.aio.server(interceptors=interceptors)
    # Every service registers into the table, which the server gets as its one generic handler: no
    # registered methods, so the server waits on one pending call, not one per method (method_table.py).
    table = MethodTable()
    charge_service_pb2_grpc.add_ChargeServiceServicer_to_server(
        ChargeServicer(core.charges, core.views, core.runner), table
    )
    checkout_service_pb2_grpc.add_CheckoutServiceServicer_to_server(
        CheckoutServicer(core.checkout, core.runner), table
    )
    catalog_service_pb2_grpc.add_CatalogServiceServicer_to_server(
        CatalogServicer(core.tax_rates, core.plans, core.runner), table
    )
    merchant_service_pb2_grpc.add_MerchantServiceServicer_to_server(
        MerchantServicer(core.merchants, core.runner), table
    )
    api_key_service_pb2_grpc.add_ApiKeyServiceServicer_to_server(
        ApiKeyServicer(core.api_keys, core.runner), table
    )
    idempotency_service_pb2_grpc.add_IdempotencyServiceServicer_to_server(
        IdempotencyServicer(core.runner), table
    )
    webhook_service_pb2_grpc.add_WebhookServiceServicer_to_server(
        WebhookServicer(core.webhooks, core.events, core.runner), table
    )
    test_clock_service_pb2_grpc.add_TestClockServiceServicer_to_server(
        TestClockServicer(core.test_clock, core.runner), table
    )
    customer_service_pb2_grpc.add_CustomerServiceServicer_to_server(
        CustomerServicer(core.customers, core.payment_methods, core.customer_balances, core.runner), table
    )
    subscription_service_pb2_grpc.add_SubscriptionServiceServicer_to_server(
        SubscriptionServicer(core.subscriptions, core.invoices, core.runner), table
    )
    portal_service_pb2_grpc.add_PortalServiceServicer_to_server(
        PortalServicer(core.portal, core.runner), table
    )
    ledger_service_pb2_grpc.add_LedgerServiceServicer_to_server(
        LedgerServicer(core.ledger, core.payouts), table
    )
    cli_session_service_pb2_grpc.add_CliSessionServiceServicer_to_server(
        CliSessionServicer(core.cli_sessions, core.cli_stream, core.runner), table
    )
    test_reset_service_pb2_grpc.add_TestResetServiceServicer_to_server(
        TestResetServicer(core.test_reset, core.runner), table
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, table)
    server.add_generic_rpc_handlers(table.handlers())
    # On the server itself: it picks its asyncio servicer by the server's type (one streaming method).
    reflection.enable_server_reflection(
        (*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    return server, health_servicer


def add_port(server: grpc.aio.Server, settings: Settings) -> int:
    """TLS with CORE_TLS_CERT_FILE/CORE_TLS_KEY_FILE, else plaintext (config allows that off loopback only
    with CORE_AUTH_TOKEN); returns the bound port, 0 when the address cannot be bound."""
    if not (settings.tls_cert_file and settings.tls_key_file):
        return server.add_insecure_port(settings.grpc_addr)
    credentials = grpc.ssl_server_credentials(
        [(Path(settings.tls_key_file).read_bytes(), Path(settings.tls_cert_file).read_bytes())]
    )
    return server.add_secure_port(settings.grpc_addr, credentials)


async def serve(settings: Settings) -> None:
    core = await build_core(settings)
    server, health_servicer = build_server(core)
    port = add_port(server, settings)
    if port == 0:
        raise RuntimeError(f"cannot bind {settings.grpc_addr}")
    # Everything wired so far lives as long as the process: out of every later collection (gc_tuning).
    freeze_startup_objects()
    await server.start()
    metrics_server = serve_metrics(settings.metrics_addr)
    track_active_actors(core.charge_actors.name, lambda: core.charge_actors.active_count)
    jobs = [
        asyncio.create_task(sample_queue_depth(core.deliveries.pending_count), name="metrics-sampler"),
        *(asyncio.create_task(sweep.run_forever(), name=f"{sweep.name}-sweep") for sweep in core.sweeps),
        asyncio.create_task(watch_health(core, health_servicer, SERVICE_NAMES), name="health-watch"),
        # WEBHOOK_DISPATCH: the dispatcher on this loop, or its process, started and supervised here.
        asyncio.create_task(core.delivery.run_forever(), name="webhook-dispatcher"),
        asyncio.create_task(core.retention.run_forever(), name="retention-sweep"),
    ]
    logger.info(
        "core listening on %s (%s, %s)",
        settings.grpc_addr,
        "TLS" if settings.tls_enabled else "plaintext",
        "auth token required" if settings.auth_token else "no auth token",
    )

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()

    logger.info("core shutting down")
    await health_servicer.enter_graceful_shutdown()
    core.cli_stream.close()  # open `payconnect listen` streams end now; their CLIs resume elsewhere
    # The background jobs stop now, beside the RPC grace. The webhook dispatcher gives the sends in flight
    # their own grace, so a cancel that a client library swallowed is repeated only after that; a
    # dispatcher process is stopped (SIGTERM, the same grace) before the core's heartbeat, which carries
    # its claims, ends in core.close().
    jobs_stopped = asyncio.ensure_future(cancel_and_wait(*jobs, recancel=DISPATCH_GRACE_SECONDS + 1.0))
    # In-flight RPCs get the grace period (SHUTDOWN_GRACE_SECONDS); then actors release their leases.
    await server.stop(settings.shutdown_grace_seconds)
    await jobs_stopped
    await core.close()
    if metrics_server is not None:
        metrics_server.shutdown()
    logger.info("core stopped")


def main() -> None:
    configure_logging("core")
    settings = Settings.from_env()
    tune_for_serving()
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - uvloop is optional on platforms without it
        pass
    asyncio.run(serve(settings))
