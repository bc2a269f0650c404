"""MethodTable: every RPC of the core found by its path in one dict, as one generic handler of the server.

grpc.aio's server keeps one pending request-call per *registered* method, and for every call it accepts
it waits on all of them at once (`asyncio.wait` over the pending futures in `_server_main_loop`,
grpc/_cython/_cygrpc/aio/server.pyx.pxi): a cost proportional to the number of registered methods — the
core's ~90 — on every RPC, 3–4 % of the core's CPU under create load. The generated
`add_*Servicer_to_server` functions register each service both ways (a generic handler and registered
methods); given this table instead of the server, a service's methods are kept here only, the server
gets the table as a generic handler, and it waits on one pending call. Calls, their handlers and their
interceptors are the same; only how the server finds the handler changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import grpc


class MethodTable(grpc.GenericRpcHandler):
    """Stands in for the server in `add_*Servicer_to_server(servicer, table)`; then
    `server.add_generic_rpc_handlers(table.handlers())`."""

    def __init__(self) -> None:
        self.services: dict[str, Mapping[str, grpc.RpcMethodHandler]] = {}
        self._by_path: dict[str, grpc.RpcMethodHandler] = {}
        self._generic: list[grpc.GenericRpcHandler] = []

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler]
    ) -> None:
        self.services[service] = handlers
        self._by_path.update({f"/{service}/{name}": handler for name, handler in handlers.items()})

    def add_generic_rpc_handlers(self, handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        # The same methods as the registered ones beside them, consulted only for a path the table
        # lacks (a service whose generated code registers no methods keeps working).
        self._generic.extend(handlers)

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        return self._by_path.get(handler_call_details.method)

    def handlers(self) -> tuple[grpc.GenericRpcHandler, ...]:
        """The table first, then the generic handlers it was given (reached only on a miss)."""
        return (self, *self._generic)
