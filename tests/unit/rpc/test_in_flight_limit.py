"""The core's InFlightLimit on a real grpc.aio server: past CORE_MAX_IN_FLIGHT_RPCS a call is refused at
once without running its servicer, health is never refused, and the gateway's call_core answers the
refusal 503 `service_unavailable` with Retry-After, without retrying it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from connect import errors
from connect.v1 import charge_service_pb2, charge_service_pb2_grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from core_server.rpc.load_shedding import InFlightLimit
from http_gateway.config import Settings
from http_gateway.core_client.grpc_clients import call_core
from http_gateway.edge.errors import ApiError
from tests.support.core_shapes import charge_with_id

KEY = "k" * 32


class SlowCharges(charge_service_pb2_grpc.ChargeServiceServicer):
    """GetCharge holds until released; every call that ran is counted."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.ran = 0

    async def GetCharge(self, request, context):  # noqa: N802 - gRPC method name
        self.ran += 1
        await self.release.wait()
        return charge_service_pb2.GetChargeResponse(charge=charge_with_id(request.charge_id))


@dataclass
class Served:
    charges: charge_service_pb2_grpc.ChargeServiceStub
    health: health_pb2_grpc.HealthStub
    servicer: SlowCharges
    limit: InFlightLimit


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    limit = InFlightLimit(2)
    server = grpc.aio.server(interceptors=[limit])
    servicer = SlowCharges()
    charge_service_pb2_grpc.add_ChargeServiceServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Served(
            charge_service_pb2_grpc.ChargeServiceStub(channel),
            health_pb2_grpc.HealthStub(channel),
            servicer,
            limit,
        )
    finally:
        servicer.release.set()
        await channel.close()
        await server.stop(None)


async def _until(predicate, seconds: float = 2.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


async def test_a_call_past_the_bound_is_refused_at_once_and_never_runs(served: Served) -> None:
    running = [
        asyncio.ensure_future(
            served.charges.GetCharge(charge_service_pb2.GetChargeRequest(charge_id=f"ch_{n}"))
        )
        for n in range(2)
    ]
    await _until(lambda: served.servicer.ran == 2)
    started = time.monotonic()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await served.charges.GetCharge(charge_service_pb2.GetChargeRequest(charge_id="ch_3"), timeout=5)
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert time.monotonic() - started < 0.5
    assert served.servicer.ran == 2  # the refused call's servicer never ran
    # Health answers whatever the load.
    reply = await served.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    served.servicer.release.set()
    await asyncio.gather(*running)
    assert served.limit.in_flight == 0
    # Below the bound again: calls run.
    await served.charges.GetCharge(charge_service_pb2.GetChargeRequest(charge_id="ch_4"), timeout=5)
    assert served.servicer.ran == 3


async def test_the_gateway_answers_a_refusal_503_with_retry_after_and_does_not_retry(served: Served) -> None:
    settings = Settings(jwt_signing_key=KEY, core_timeout=5.0)
    running = [
        asyncio.ensure_future(
            served.charges.GetCharge(charge_service_pb2.GetChargeRequest(charge_id=f"ch_{n}"))
        )
        for n in range(2)
    ]
    await _until(lambda: served.servicer.ran == 2)
    started = time.monotonic()
    with pytest.raises(ApiError) as shed:
        await call_core(
            settings,
            served.charges.GetCharge,
            charge_service_pb2.GetChargeRequest(charge_id="ch_3"),
            request_id="req_shed",
            is_read=True,  # even a read is not retried: a retry now would only add to the overload
        )
    assert time.monotonic() - started < 0.5
    assert shed.value.http_status == 503
    assert (shed.value.type, shed.value.code) == (errors.API, errors.SERVICE_UNAVAILABLE.code)
    assert shed.value.headers["Retry-After"] == "1"
    assert served.servicer.ran == 2
    served.servicer.release.set()
    await asyncio.gather(*running)
