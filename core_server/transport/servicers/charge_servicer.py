"""ChargeServicer: the ChargeService RPCs over the charge use cases."""

from __future__ import annotations

import grpc
from connect.v1 import charge_service_pb2 as pb
from connect.v1 import charge_service_pb2_grpc

from core_server.application.charges import ChargeService, NewCharge
from core_server.application.idempotency import Replay
from core_server.domain.charge import Charge
from core_server.domain.dispute import Dispute
from core_server.domain.refund import Refund
from core_server.transport.proto_mapping import (
    STATUS_FROM_PB,
    api_scope,
    charge_to_pb,
    dispute_to_pb,
    idempotency_from_pb,
    owner_from_caller,
    refund_to_pb,
)
from core_server.transport.status import mark_replayed, rpc


class ChargeServicer(charge_service_pb2_grpc.ChargeServiceServicer):
    def __init__(self, charges: ChargeService, checkout_base_url: str) -> None:
        self._charges = charges
        self._base = checkout_base_url

    def _charge_bytes(self, response_type: type, charge: Charge) -> bytes:
        return response_type(charge=charge_to_pb(charge, self._base)).SerializeToString()  # type: ignore[no-any-return]

    @rpc
    async def CreateCharge(self, request: pb.CreateChargeRequest, context: grpc.aio.ServicerContext) -> pb.CreateChargeResponse:
        owner = owner_from_caller(request.caller)
        new = NewCharge(
            amount=request.amount,
            currency=request.currency,
            return_url=request.return_url,
            description=request.description if request.HasField("description") else None,
            metadata=dict(request.metadata),
            cancel_url=request.cancel_url if request.HasField("cancel_url") else None,
            customer_email=request.customer_email if request.HasField("customer_email") else None,
        )
        result = await self._charges.create(
            owner, new, idempotency_from_pb(api_scope(owner), request.idempotency),
            lambda charge: self._charge_bytes(pb.CreateChargeResponse, charge),
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.CreateChargeResponse.FromString(result.response)
        return pb.CreateChargeResponse(charge=charge_to_pb(result, self._base))

    @rpc
    async def GetCharge(self, request: pb.GetChargeRequest, context: grpc.aio.ServicerContext) -> pb.GetChargeResponse:
        charge = await self._charges.get(owner_from_caller(request.caller), request.charge_id)
        return pb.GetChargeResponse(charge=charge_to_pb(charge, self._base))

    @rpc
    async def ListCharges(self, request: pb.ListChargesRequest, context: grpc.aio.ServicerContext) -> pb.ListChargesResponse:
        page = await self._charges.list(
            owner_from_caller(request.caller),
            limit=request.limit,
            status=STATUS_FROM_PB.get(request.status),
            created_after=request.created_after if request.HasField("created_after") else None,
            created_before=request.created_before if request.HasField("created_before") else None,
            starting_after=request.starting_after or None,
        )
        return pb.ListChargesResponse(
            charges=[charge_to_pb(c, self._base) for c in page.charges],
            has_more=page.has_more,
            total_count=page.total_count,
        )

    @rpc
    async def CaptureCharge(self, request: pb.CaptureChargeRequest, context: grpc.aio.ServicerContext) -> pb.CaptureChargeResponse:
        owner = owner_from_caller(request.caller)
        result = await self._charges.capture(
            owner, request.charge_id, request.amount if request.HasField("amount") else None,
            idempotency_from_pb(api_scope(owner), request.idempotency),
            lambda charge: self._charge_bytes(pb.CaptureChargeResponse, charge),
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.CaptureChargeResponse.FromString(result.response)
        return pb.CaptureChargeResponse(charge=charge_to_pb(result, self._base))

    @rpc
    async def RefundCharge(self, request: pb.RefundChargeRequest, context: grpc.aio.ServicerContext) -> pb.RefundChargeResponse:
        owner = owner_from_caller(request.caller)

        def render(result: tuple[Refund, Charge]) -> bytes:
            refund, charge = result
            response = pb.RefundChargeResponse(refund=refund_to_pb(refund), charge=charge_to_pb(charge, self._base))
            return response.SerializeToString()

        result = await self._charges.refund(
            owner, request.charge_id,
            request.amount if request.HasField("amount") else None,
            request.reason if request.HasField("reason") else None,
            idempotency_from_pb(api_scope(owner), request.idempotency), render,
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.RefundChargeResponse.FromString(result.response)
        refund, charge = result
        return pb.RefundChargeResponse(refund=refund_to_pb(refund), charge=charge_to_pb(charge, self._base))

    @rpc
    async def VoidCharge(self, request: pb.VoidChargeRequest, context: grpc.aio.ServicerContext) -> pb.VoidChargeResponse:
        owner = owner_from_caller(request.caller)
        result = await self._charges.void(
            owner, request.charge_id, idempotency_from_pb(api_scope(owner), request.idempotency),
            lambda charge: self._charge_bytes(pb.VoidChargeResponse, charge),
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.VoidChargeResponse.FromString(result.response)
        return pb.VoidChargeResponse(charge=charge_to_pb(result, self._base))

    @rpc
    async def DisputeCharge(self, request: pb.DisputeChargeRequest, context: grpc.aio.ServicerContext) -> pb.DisputeChargeResponse:
        owner = owner_from_caller(request.caller)
        result = await self._charges.open_dispute(
            owner, request.charge_id, idempotency_from_pb(api_scope(owner), request.idempotency),
            lambda d: pb.DisputeChargeResponse(dispute=dispute_to_pb(d)).SerializeToString(),
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.DisputeChargeResponse.FromString(result.response)
        return pb.DisputeChargeResponse(dispute=dispute_to_pb(result))

    @rpc
    async def CloseDispute(self, request: pb.CloseDisputeRequest, context: grpc.aio.ServicerContext) -> pb.CloseDisputeResponse:
        owner = owner_from_caller(request.caller)
        result: Dispute | Replay = await self._charges.close_dispute_by_id(
            owner, request.dispute_id, request.outcome,
            idempotency_from_pb(api_scope(owner), request.idempotency),
            lambda d: pb.CloseDisputeResponse(dispute=dispute_to_pb(d)).SerializeToString(),
        )
        if isinstance(result, Replay):
            mark_replayed(context)
            return pb.CloseDisputeResponse.FromString(result.response)
        return pb.CloseDisputeResponse(dispute=dispute_to_pb(result))
