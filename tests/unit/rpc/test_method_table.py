"""core_server/rpc/method_table.py: the core's services reach the server as one generic handler, so
grpc.aio's server waits on one pending call per accepted RPC instead of one per registered method."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from core_server import main
from core_server.rpc.method_table import MethodTable


async def test_calls_resolve_through_the_table_and_unknown_ones_are_unimplemented() -> None:
    table = MethodTable()
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, table)
    assert set(table.services) == {"grpc.health.v1.Health"}
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(table.handlers())
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=5
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            unknown = channel.unary_unary("/grpc.health.v1.Health/Nope")
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await unknown(b"", timeout=5)
            assert failed.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        await server.stop(None)


class Recorder:
    def __init__(self) -> None:
        self.registered: list[str] = []
        self.generic: list[Any] = []

    def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
        self.registered.append(service)

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self.generic.extend(handlers)


class AnyCore:
    settings = type("Settings", (), {"auth_token": "", "max_in_flight_rpcs": 0})()

    def __getattr__(self, name: str) -> Any:
        return None


def test_build_server_registers_no_method_of_the_core_on_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(main.grpc.aio, "server", lambda **_: recorder)
    monkeypatch.setattr(main.reflection, "enable_server_reflection", lambda names, server: None)
    main.build_server(AnyCore())  # type: ignore[arg-type]
    assert recorder.registered == []
    tables = [h for h in recorder.generic if isinstance(h, MethodTable)]
    assert len(tables) == 1 and recorder.generic[0] is tables[0]
    assert set(main.SERVICE_NAMES) | {"grpc.health.v1.Health"} <= set(tables[0].services)
