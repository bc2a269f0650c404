"""AuthTokenInterceptor: internal callers present CORE_AUTH_TOKEN (DESIGN §1); only health stays open.

Every service answers UNAUTHENTICATED without the token, reflection included (it would list the whole
API to whoever asks); health stays open so load balancers and orchestrators can probe without a secret.
A refused call never reaches a servicer, and unknown methods are refused alike, so nobody maps the API
without the token. The refusal is a unary handler: gRPC ends streaming calls (reflection) with its status.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

_OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


async def _deny(request: Any, context: grpc.aio.ServicerContext) -> None:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong core auth token")


class AuthTokenInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if handler_call_details.method.startswith(_OPEN_PREFIXES):
            return await continuation(handler_call_details)
        presented = ""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "authorization" and isinstance(value, str):
                presented = value
        # Constant time: the comparison must not tell a guesser how many leading bytes were right.
        if hmac.compare_digest(presented.encode(), self._expected):
            return await continuation(handler_call_details)
        return grpc.unary_unary_rpc_method_handler(_deny)
