"""call_core against a real in-process grpc.aio server (pins how aio exposes trailers) and scripted fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from connect.v1 import charge_service_pb2, charge_service_pb2_grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from http_gateway.config import Settings
from http_gateway.core_client.grpc_clients import call_core
from http_gateway.edge.errors import ApiError
from tests.support.core_shapes import charge_with_id
from tests.unit.gateway.gateway_fakes import FakeMethod, rpc_error

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)


class ScriptedCharges(charge_service_pb2_grpc.ChargeServiceServicer):
    """GetCharge answers per charge id: ok, replayed, rich error, or busy-then-ok."""

    def __init__(self) -> None:
        self.metadata_seen: list[dict[str, str]] = []
        self.busy_left = 1

    async def GetCharge(self, request, context):  # noqa: N802 - gRPC method name
        self.metadata_seen.append({k: v for k, v in context.invocation_metadata()})
        charge = charge_with_id(request.charge_id)
        if request.charge_id == "ch_replayed":
            context.set_trailing_metadata((("idempotent-replayed", "true"),))
        elif request.charge_id == "ch_missing":
            info = error_details_pb2.ErrorInfo(
                reason="resource_missing",
                domain="connect.v1",
                metadata={"type": "resource_not_found", "param": "id"},
            )
            detail = any_pb2.Any()
            detail.Pack(info)
            code = grpc.StatusCode.NOT_FOUND.value[0]
            status = status_pb2.Status(code=code, message="No such charge", details=[detail])
            await context.abort(
                grpc.StatusCode.NOT_FOUND,
                "No such charge",
                trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),),
            )
        elif request.charge_id == "ch_busy" and self.busy_left > 0:
            self.busy_left -= 1
            await context.abort(grpc.StatusCode.ABORTED, "entity busy")
        return charge_service_pb2.GetChargeResponse(charge=charge)


@pytest.fixture
async def served() -> AsyncIterator[tuple[charge_service_pb2_grpc.ChargeServiceStub, ScriptedCharges]]:
    server = grpc.aio.server()
    servicer = ScriptedCharges()
    charge_service_pb2_grpc.add_ChargeServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield charge_service_pb2_grpc.ChargeServiceStub(channel), servicer
    finally:
        await channel.close()
        await server.stop(None)


SETTINGS = Settings(jwt_signing_key=KEY, core_timeout=2.0, core_auth_token="internal-token")


async def _no_sleep(_: float) -> None:
    return None


async def _get(stub, charge_id: str, *, is_read: bool = True):
    request = charge_service_pb2.GetChargeRequest(charge_id=charge_id)
    return await _call(stub.GetCharge, request, is_read=is_read, request_id="req_abc")


async def _call(method, message, *, is_read: bool, request_id: str = "r"):
    return await call_core(SETTINGS, method, message, request_id=request_id, is_read=is_read, sleep=_no_sleep)


async def test_request_id_and_core_token_travel_as_metadata(served):
    stub, servicer = served
    reply = await _get(stub, "ch_ok")
    assert reply.response.charge.id == "ch_ok"
    assert not reply.replayed
    assert servicer.metadata_seen[0]["x-request-id"] == "req_abc"
    assert servicer.metadata_seen[0]["authorization"] == "Bearer internal-token"


async def test_replay_flag_is_read_from_trailing_metadata(served):
    stub, _ = served
    assert (await _get(stub, "ch_replayed")).replayed


async def test_rich_status_from_a_real_server_maps_to_the_envelope(served):
    stub, _ = served
    with pytest.raises(ApiError) as caught:
        await _get(stub, "ch_missing")
    err = caught.value
    assert (err.http_status, err.type, err.code, err.param, err.message) == (
        404,
        "resource_not_found",
        "resource_missing",
        "id",
        "No such charge",
    )


async def test_busy_entity_is_retried_once_even_for_writes(served):
    stub, servicer = served
    reply = await _get(stub, "ch_busy", is_read=False)
    assert reply.response.charge.id == "ch_busy"
    assert len(servicer.metadata_seen) == 2


async def test_second_busy_answer_becomes_503():
    busy = rpc_error(grpc.StatusCode.ABORTED)
    method = FakeMethod("CaptureCharge").raises(busy).raises(busy)
    with pytest.raises(ApiError) as caught:
        await _call(method, charge_service_pb2.CaptureChargeRequest(), is_read=False)
    assert (caught.value.http_status, caught.value.code) == (503, "service_busy")
    assert len(method.calls) == 2


async def test_unavailable_write_is_not_retried():
    method = FakeMethod("RefundCharge").raises(rpc_error(grpc.StatusCode.UNAVAILABLE)).returns(object())
    with pytest.raises(ApiError) as caught:
        await _call(method, charge_service_pb2.RefundChargeRequest(), is_read=False)
    assert (caught.value.http_status, caught.value.code) == (503, "service_unavailable")
    assert len(method.calls) == 1


async def test_unavailable_read_is_retried_once():
    ok = charge_service_pb2.GetChargeResponse()
    method = FakeMethod("GetCharge").raises(rpc_error(grpc.StatusCode.UNAVAILABLE)).returns(ok)
    reply = await _call(method, charge_service_pb2.GetChargeRequest(), is_read=True)
    assert reply.response is ok
    assert len(method.calls) == 2


async def test_every_call_carries_the_deadline():
    method = FakeMethod("GetCharge").returns(charge_service_pb2.GetChargeResponse())
    await call_core(SETTINGS, method, charge_service_pb2.GetChargeRequest(), request_id="r", is_read=True)
    timeout = method.calls[0].timeout
    assert timeout is not None and 0 < timeout <= SETTINGS.core_timeout


async def test_core_down_is_503_not_a_hang():
    channel = grpc.aio.insecure_channel("127.0.0.1:1")  # nothing listens on port 1
    stub = charge_service_pb2_grpc.ChargeServiceStub(channel)
    try:
        with pytest.raises(ApiError) as caught:
            await _get(stub, "ch_x")
    finally:
        await channel.close()
    assert caught.value.http_status == 503
