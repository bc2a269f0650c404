"""create_app(settings): the Sanic application factory (no module-level app)."""

from __future__ import annotations

import time
from typing import Any

from connect.gc_tuning import freeze_startup_objects, tune_for_serving
from sanic import Request, Sanic
from sanic.response import BaseHTTPResponse

from http_gateway.billing.portal import loggable_path
from http_gateway.config import Settings
from http_gateway.core_client.grpc_clients import CoreClients, open_core_clients
from http_gateway.core_client.load_shedding import CoreCallGate, no_longer_on_its_way, turn_away_when_full
from http_gateway.developer_tools.cli_stream import end_open_streams
from http_gateway.edge.errors import register_error_handlers
from http_gateway.edge.security_headers import apply_default_headers
from http_gateway.observability.access_log import log_access
from http_gateway.observability.logging_setup import configure_logging, new_request_id, request_id_var
from http_gateway.observability.metrics import observe_request
from http_gateway.payments.pages import checkout_pages
from http_gateway.pipeline.rate_limit import RateLimiter, connect_redis
from http_gateway.pipeline.redis_sentinel import close_redis
from http_gateway.pipeline.versions import HEADER as VERSION_HEADER
from http_gateway.routing import mount_routes


def create_app(
    settings: Settings,
    *,
    core: CoreClients | None = None,
    redis: Any | None = None,
    name: str = "http_gateway",
) -> Sanic:
    """Build the app; `core` and `redis` replace the real connections in tests (they are then not closed)."""
    app = Sanic(name, configure_logging=False)
    app.config.update(settings.as_sanic_config())
    app.ctx.settings = settings
    register_error_handlers(app)
    _register_middleware(app)
    app.register_middleware(turn_away_when_full, "request")  # after the request id is set
    app.register_middleware(no_longer_on_its_way, "response")
    mount_routes(app)
    app.blueprint(checkout_pages.blueprint())  # hosted checkout HTML: no-JS form post, CSS/JS assets

    async def open_connections(app: Sanic) -> None:
        # Inside the worker's event loop: grpc.aio channels and redis clients are bound to it.
        app.ctx.core = core if core is not None else open_core_clients(settings)
        app.ctx.redis = redis if redis is not None else gateway_redis(settings)
        app.ctx.rate_limiter = RateLimiter(app.ctx.redis, settings.redis_namespace)
        app.ctx.core_gate = CoreCallGate(
            settings.max_core_calls, settings.core_call_queue, settings.core_call_wait_seconds
        )

    async def close_connections(app: Sanic) -> None:
        if core is None:
            await app.ctx.core.close()
        if redis is None:
            await close_redis(app.ctx.redis)

    app.before_server_start(open_connections)
    app.before_server_stop(end_open_streams)  # open `payconnect listen` streams end; clients resume
    app.after_server_stop(close_connections)
    return app


def gateway_redis(settings: Settings) -> Any:
    """One Redis (REDIS_URL) or the master Sentinel names (REDIS_SENTINELS, docs/operations.md)."""
    sentinels, service = settings.redis_sentinels, settings.redis_sentinel_service
    return connect_redis(settings.redis_url, sentinels=sentinels, service=service)


def create_worker_app(settings: Settings) -> Sanic:
    """Factory for each worker process of a multi-worker server: logging is configured per process."""
    configure_logging()
    return tuned_for_serving(create_app(settings))


def tuned_for_serving(app: Sanic) -> Sanic:
    """The collector settings every serving process takes (connect/gc_tuning.py says why) for a serving
    gateway process.

    Without them, full collections under load stopped the worker's loop for up to 67 ms a few times a
    run. Only a served app is tuned: apps built inside tests leave their process's collector alone.
    """

    async def settle_collector(app: Sanic) -> None:
        tune_for_serving()
        freeze_startup_objects()  # what start-up built lives as long as the worker: out of every walk

    app.before_server_start(settle_collector)
    return app


def _register_middleware(app: Sanic) -> None:
    async def start_request(request: Request) -> None:
        request_id = new_request_id()
        request.ctx.request_id = request_id
        request.ctx.started = time.monotonic()
        request_id_var.set(request_id)

    async def finish_response(request: Request, response: BaseHTTPResponse) -> None:
        """Headers every response carries, errors included: Request-Id, X-RateLimit-*, Service-Version."""
        request_id = getattr(request.ctx, "request_id", None)
        if request_id is None:  # the request failed before middleware ran (e.g. unreadable headers)
            request_id = request.ctx.request_id = new_request_id()
        response.headers["Request-Id"] = request_id
        apply_default_headers(response)
        decision = getattr(request.ctx, "rate_limit", None)
        if decision is not None:
            for key, value in decision.headers().items():
                response.headers[key] = value
        version = getattr(request.ctx, "service_version", None)
        if version is not None:
            response.headers[VERSION_HEADER] = version
        started = getattr(request.ctx, "started", None)
        elapsed = time.monotonic() - started if started else None
        route = request.route.path if request.route is not None else None
        observe_request(route, request.method, response.status, elapsed)
        # Never the query string or headers, nor a portal token: they are credentials.
        path = loggable_path(request.path)
        log_access(request_id, request.method, path, response.status, _milliseconds(elapsed))

    app.register_middleware(start_request, "request")
    app.register_middleware(finish_response, "response")


def _milliseconds(seconds: float | None) -> float | None:
    return round(seconds * 1000, 1) if seconds is not None else None
