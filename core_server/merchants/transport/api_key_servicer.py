"""ApiKeyServicer: key management and bearer-key resolution."""

from __future__ import annotations

import grpc
from connect.v1 import api_key_pb2, api_key_service_pb2_grpc
from connect.v1 import api_key_service_pb2 as pb

from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.domain.replays import Replay
from core_server.kernel.transport.mapping import (
    ENVIRONMENT_FROM_PB,
    ENVIRONMENT_TO_PB,
    idempotency_from_pb,
)
from core_server.merchants.application.api_keys import ApiKeyService
from core_server.merchants.transport.mapping import api_key_to_pb
from core_server.rpc.status import answer, rpc

KIND_TO_PB = {"secret": api_key_pb2.API_KEY_KIND_SECRET, "publishable": api_key_pb2.API_KEY_KIND_PUBLISHABLE}


def dashboard_scope(merchant_id: str) -> str:
    return f"{merchant_id}:dashboard"


class ApiKeyServicer(api_key_service_pb2_grpc.ApiKeyServiceServicer):
    def __init__(self, keys: ApiKeyService, runner: IdempotentRunner) -> None:
        self._keys = keys
        self._runner = runner

    @rpc
    async def CreateApiKey(
        self, request: pb.CreateApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateApiKeyResponse:
        environment = ENVIRONMENT_FROM_PB.get(request.environment)
        idempotency = idempotency_from_pb(dashboard_scope(request.merchant_id), request.idempotency)

        async def operation(_claim: object) -> pb.CreateApiKeyResponse:
            key = await self._keys.create(
                request.merchant_id, request.name, environment.value if environment else ""
            )
            return pb.CreateApiKeyResponse(api_key=api_key_to_pb(key))

        def render(response: pb.CreateApiKeyResponse) -> bytes:
            assert idempotency is not None  # render runs only for requests with a key
            return self._keys.seal_answer(idempotency, response.SerializeToString())

        result = await self._runner.run(idempotency, render, operation)
        if isinstance(result, Replay):
            assert idempotency is not None
            result = Replay(self._keys.open_answer(idempotency, result.response))
        return answer(context, pb.CreateApiKeyResponse, result, lambda fresh: fresh)

    @rpc
    async def ListApiKeys(
        self, request: pb.ListApiKeysRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListApiKeysResponse:
        keys = await self._keys.list(request.merchant_id)
        return pb.ListApiKeysResponse(api_keys=[api_key_to_pb(k) for k in keys])

    @rpc
    async def RevokeApiKey(
        self, request: pb.RevokeApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> pb.RevokeApiKeyResponse:
        async def operation(_claim: object) -> pb.RevokeApiKeyResponse:
            return pb.RevokeApiKeyResponse(
                api_key=api_key_to_pb(await self._keys.revoke(request.merchant_id, request.key_id))
            )

        result = await self._runner.run(
            idempotency_from_pb(dashboard_scope(request.merchant_id), request.idempotency),
            lambda response: response.SerializeToString(),
            operation,
        )
        return answer(context, pb.RevokeApiKeyResponse, result, lambda fresh: fresh)

    @rpc
    async def AuthenticateApiKey(
        self, request: pb.AuthenticateApiKeyRequest, context: grpc.aio.ServicerContext
    ) -> pb.AuthenticateApiKeyResponse:
        resolved = await self._keys.authenticate(request.key)
        return pb.AuthenticateApiKeyResponse(
            merchant_id=resolved.merchant_id,
            environment=ENVIRONMENT_TO_PB[resolved.environment],
            kind=KIND_TO_PB[resolved.kind],
            key_id=resolved.key_id,
        )
