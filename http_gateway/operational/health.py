"""Operational routes: GET /healthz (200 when the core and Redis both answer, 503 otherwise, for load
balancers) and GET /metrics (Prometheus text format)."""

from __future__ import annotations

import asyncio

from redis.exceptions import RedisError
from sanic import Blueprint, Request
from sanic.exceptions import NotFound
from sanic.response import HTTPResponse, json, raw

from http_gateway.core_client.grpc_clients import CoreClients, core_is_serving, core_metadata
from http_gateway.observability import metrics
from http_gateway.operational.metrics_access import metrics_allowed
from http_gateway.pipeline.admission import client_address

CHECK_TIMEOUT_SECONDS = 2.0


async def _redis_ok(client: object) -> bool:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECONDS):
            return bool(await client.ping())  # type: ignore[attr-defined]
    except (RedisError, OSError, TimeoutError):
        return False


async def healthz(request: Request) -> HTTPResponse:
    core: CoreClients = request.app.ctx.core
    metadata = core_metadata(request.app.ctx.settings, request.ctx.request_id)
    core_ok, redis_ok = await asyncio.gather(
        core_is_serving(core, metadata, CHECK_TIMEOUT_SECONDS), _redis_ok(request.app.ctx.redis)
    )
    if core_ok and redis_ok:
        return json({"status": "ok"})
    checks = {"core": "ok" if core_ok else "unavailable", "redis": "ok" if redis_ok else "unavailable"}
    return json({"status": "unavailable", "checks": checks}, status=503)


async def prometheus_metrics(request: Request) -> HTTPResponse:
    token = request.app.ctx.settings.metrics_token
    if not metrics_allowed(client_address(request), request.headers.get("authorization"), token):
        raise NotFound("metrics are for loopback peers or METRICS_TOKEN holders")  # DESIGN §10.9
    return raw(metrics.exposition(), content_type=metrics.CONTENT_TYPE)


def blueprint() -> Blueprint:
    bp = Blueprint("health")
    bp.add_route(healthz, "/healthz", methods=["GET"], name="healthz")
    bp.add_route(prometheus_metrics, "/metrics", methods=["GET"], name="metrics")
    return bp
