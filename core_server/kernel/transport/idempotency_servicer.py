"""IdempotencyServicer: the early key check the gateway makes before validating a body."""

from __future__ import annotations

import grpc
from connect.v1 import idempotency_service_pb2 as pb
from connect.v1 import idempotency_service_pb2_grpc

from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.transport.mapping import idempotency_from_pb
from core_server.rpc.status import rpc


class IdempotencyServicer(idempotency_service_pb2_grpc.IdempotencyServiceServicer):
    def __init__(self, runner: IdempotentRunner) -> None:
        self._runner = runner

    @rpc
    async def CheckIdempotencyKey(
        self, request: pb.CheckIdempotencyKeyRequest, context: grpc.aio.ServicerContext
    ) -> pb.CheckIdempotencyKeyResponse:
        idem = idempotency_from_pb(request.scope, request.idempotency)
        if idem is None:
            return pb.CheckIdempotencyKeyResponse(stored=False)
        return pb.CheckIdempotencyKeyResponse(stored=await self._runner.check(idem))
