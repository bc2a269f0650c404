"""Reports the core SERVING only while PostgreSQL and Redis answer, so /healthz tells the truth."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from grpc_health.v1 import health, health_pb2

from core_server.bootstrap import Core

logger = logging.getLogger(__name__)

CHECK_INTERVAL_SECONDS = 2.0
CHECK_TIMEOUT_SECONDS = 1.5


async def dependencies_answer(core: Core) -> bool:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_SECONDS):
            async with core.pool.connection() as conn:
                await conn.execute("SELECT 1")
            await core.redis.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means "not serving"
        logger.warning("health check failed: %s", type(exc).__name__)
        return False
    return True


async def watch_health(core: Core, servicer: health.aio.HealthServicer, services: Iterable[str]) -> None:
    names = ("", *services)
    serving: bool | None = None
    while True:
        ok = await dependencies_answer(core)
        if ok != serving:
            status = (
                health_pb2.HealthCheckResponse.SERVING if ok else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in names:
                await servicer.set(name, status)
            serving = ok
        # Sleeps between checks; cancelled at shutdown.
        await asyncio.sleep(CHECK_INTERVAL_SECONDS)
