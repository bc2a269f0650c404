"""InFlightLimit: at most N unary RPCs run in the core at once; the surplus is refused before it runs.

Every call the core accepts becomes a coroutine at once, and without a bound they all share the event
loop and the database pool: under overload each waits behind all the others, for seconds. Past the
bound a call is answered RESOURCE_EXHAUSTED without ErrorInfo at once — its servicer never runs, so
nothing changed and a retry is safe — and the gateway answers it 503 `service_unavailable` with
`Retry-After`. Health checks, reflection and streams (`payconnect listen`) are not counted or refused;
webhook sending and the sweeps are background tasks, not RPCs, so request load never sheds them. The
gateway's own gate (http_gateway/core_client/load_shedding.py) keeps the core under this bound in the
usual topology; this one protects the core when several gateways' bounds add up to more than it can run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from core_server.metrics import SHED_RPCS

_EXEMPT_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")
OVERLOADED = "The core is overloaded; nothing was done. Retry later."


class InFlightLimit(grpc.aio.ServerInterceptor):
    """Counts unary calls in flight; `limit` 0 counts nothing and refuses nothing."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0
        # Per method: the servicer's handler and its bounded twin, built once (the handlers never change).
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if self.limit <= 0 or handler is None or handler.unary_unary is None:
            return handler
        if method.startswith(_EXEMPT_PREFIXES):
            return handler
        known = self._wrapped.get(method)
        if known is None or known[0] is not handler:
            known = self._wrapped[method] = (
                handler,
                handler._replace(unary_unary=self._bounded(handler.unary_unary)),
            )
        return known[1]

    def _bounded(self, behavior: Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]) -> Any:
        async def bounded(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if self.in_flight >= self.limit:
                SHED_RPCS.inc()
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, OVERLOADED)
            self.in_flight += 1
            try:
                return await behavior(request, context)
            finally:
                self.in_flight -= 1

        return bounded
