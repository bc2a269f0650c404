"""AuthTokenInterceptor: internal callers present CORE_AUTH_TOKEN (DESIGN §1); health stays open."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

_OPEN_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


def _deny(request: Any, context: grpc.aio.ServicerContext) -> Awaitable[None]:
    return context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong core auth token")


class AuthTokenInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}"

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if handler_call_details.method.startswith(_OPEN_PREFIXES):
            return await continuation(handler_call_details)
        metadata = dict(handler_call_details.invocation_metadata or ())
        presented = str(metadata.get("authorization", ""))
        if hmac.compare_digest(presented.encode(), self._expected.encode()):
            return await continuation(handler_call_details)
        return grpc.unary_unary_rpc_method_handler(_deny)
