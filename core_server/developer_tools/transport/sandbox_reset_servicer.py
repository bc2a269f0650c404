"""TestResetServicer: the TEST reset (DESIGN §10.5) under the request's idempotency."""

from __future__ import annotations

import grpc
from connect.v1 import test_reset_service_pb2 as pb
from connect.v1 import test_reset_service_pb2_grpc

from core_server.developer_tools.application.sandbox_reset import TestResetService
from core_server.developer_tools.domain.sandbox_reset import TestReset
from core_server.developer_tools.transport.mapping import reset_to_pb
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.rpc.status import rpc


class TestResetServicer(test_reset_service_pb2_grpc.TestResetServiceServicer):
    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, resets: TestResetService, runner: IdempotentRunner) -> None:
        self._resets = resets
        self._runner = runner

    @rpc
    async def ResetTestData(
        self, request: pb.ResetTestDataRequest, context: grpc.aio.ServicerContext
    ) -> pb.ResetTestDataResponse:
        async def operation(owner: Owner, claim: Claim[TestReset] | None) -> TestReset:
            return await self._resets.reset(owner, claim)

        return await idempotent_rpc(
            self._runner, context, request, pb.ResetTestDataResponse, reset_to_pb, operation
        )
