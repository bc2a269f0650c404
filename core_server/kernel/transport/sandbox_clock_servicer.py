"""TestClockServicer: read and advance the caller's sandbox clock (DESIGN §9)."""

from __future__ import annotations

from datetime import datetime

import grpc
from connect.v1 import test_clock_pb2, test_clock_service_pb2_grpc
from connect.v1 import test_clock_service_pb2 as pb

from core_server.kernel.application.clocks import TestClockService
from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.public_json import unix_seconds
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.rpc.status import rpc


def _clock(now: datetime) -> test_clock_pb2.TestClock:
    return test_clock_pb2.TestClock(now=unix_seconds(now))


def _advanced(now: datetime) -> pb.AdvanceTestClockResponse:
    return pb.AdvanceTestClockResponse(clock=_clock(now))


class TestClockServicer(test_clock_service_pb2_grpc.TestClockServiceServicer):
    def __init__(self, clocks: TestClockService, runner: IdempotentRunner) -> None:
        self._clocks = clocks
        self._runner = runner

    @rpc
    async def GetTestClock(
        self, request: pb.GetTestClockRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetTestClockResponse:
        now = await self._clocks.now(owner_from_caller(request.caller))
        return pb.GetTestClockResponse(clock=_clock(now))

    @rpc
    async def AdvanceTestClock(
        self, request: pb.AdvanceTestClockRequest, context: grpc.aio.ServicerContext
    ) -> pb.AdvanceTestClockResponse:
        async def operation(owner: Owner, _claim: object) -> datetime:
            return await self._clocks.advance(owner, request.to)

        return await idempotent_rpc(
            self._runner, context, request, pb.AdvanceTestClockResponse, _advanced, operation
        )
