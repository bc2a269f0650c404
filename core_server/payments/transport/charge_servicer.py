"""ChargeServicer: the ChargeService RPCs over the charge use cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from connect.v1 import charge_service_pb2 as pb
from connect.v1 import charge_service_pb2_grpc

from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.application.charges import ChargeService, NewCharge
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.refund import Refund
from core_server.payments.transport.mapping import (
    STATUS_FROM_PB,
    capture_answer,
    charge_to_pb,
    dispute_to_pb,
    refund_to_pb,
)
from core_server.rpc.status import rpc


def _optional(request: Any, field: str) -> Any:
    return getattr(request, field) if request.HasField(field) else None


class ChargeServicer(charge_service_pb2_grpc.ChargeServiceServicer):
    def __init__(self, charges: ChargeService, views: ChargeViews, runner: IdempotentRunner) -> None:
        self._charges = charges
        self._views = views
        self._runner = runner

    def _with_charge(self, response_type: Any) -> Callable[[Charge], Any]:
        return lambda charge: response_type(charge=charge_to_pb(charge, self._views))

    def _capture_answer(self, charge: Charge) -> pb.CaptureChargeResponse:
        return capture_answer(charge, self._views)

    def _with_refund(self, result: tuple[Refund, Charge]) -> pb.RefundChargeResponse:
        refund, charge = result
        return pb.RefundChargeResponse(refund=refund_to_pb(refund), charge=charge_to_pb(charge, self._views))

    @staticmethod
    def _with_dispute(response_type: Any) -> Callable[[Dispute], Any]:
        return lambda dispute: response_type(dispute=dispute_to_pb(dispute))

    @rpc
    async def CreateCharge(
        self, request: pb.CreateChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateChargeResponse:
        new = NewCharge(
            amount=request.amount,
            currency=request.currency,
            return_url=request.return_url,
            description=_optional(request, "description"),
            metadata=dict(request.metadata),
            cancel_url=_optional(request, "cancel_url"),
            customer_email=_optional(request, "customer_email"),
        )

        async def operation(owner: Owner, claim: Claim[Charge] | None) -> Charge:
            return await self._charges.create(owner, new, claim)

        build = self._with_charge(pb.CreateChargeResponse)
        # The charge's insert claims the key itself: one statement, one round trip (FirstClaim).
        return await idempotent_rpc(
            self._runner, context, request, pb.CreateChargeResponse, build, operation, first_claim=True
        )

    @rpc
    async def GetCharge(
        self, request: pb.GetChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetChargeResponse:
        charge = await self._charges.get(owner_from_caller(request.caller), request.charge_id)
        return pb.GetChargeResponse(charge=charge_to_pb(charge, self._views))

    @rpc
    async def ListCharges(
        self, request: pb.ListChargesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListChargesResponse:
        page = await self._charges.list(
            owner_from_caller(request.caller),
            **page_query(request),
            status=STATUS_FROM_PB.get(request.status),
            created_after=_optional(request, "created_after"),
            created_before=_optional(request, "created_before"),
            customer_email=_optional(request, "customer_email"),
            invoice_id=_optional(request, "invoice_id"),
        )
        return pb.ListChargesResponse(
            charges=[charge_to_pb(c, self._views) for c in page.items],
            **page_fields(page, pb.ListChargesResponse),
        )

    @rpc
    async def CaptureCharge(
        self, request: pb.CaptureChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.CaptureChargeResponse:
        async def operation(owner: Owner, claim: Claim[Charge] | None) -> Charge:
            return await self._charges.capture(owner, request.charge_id, _optional(request, "amount"), claim)

        return await idempotent_rpc(
            self._runner, context, request, pb.CaptureChargeResponse, self._capture_answer, operation
        )

    @rpc
    async def RefundCharge(
        self, request: pb.RefundChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.RefundChargeResponse:
        async def operation(
            owner: Owner, claim: Claim[tuple[Refund, Charge]] | None
        ) -> tuple[Refund, Charge]:
            return await self._charges.refund(
                owner, request.charge_id, _optional(request, "amount"), _optional(request, "reason"), claim
            )

        return await idempotent_rpc(
            self._runner, context, request, pb.RefundChargeResponse, self._with_refund, operation
        )

    @rpc
    async def VoidCharge(
        self, request: pb.VoidChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.VoidChargeResponse:
        async def operation(owner: Owner, claim: Claim[Charge] | None) -> Charge:
            return await self._charges.void(owner, request.charge_id, claim)

        build = self._with_charge(pb.VoidChargeResponse)
        return await idempotent_rpc(self._runner, context, request, pb.VoidChargeResponse, build, operation)

    @rpc
    async def DisputeCharge(
        self, request: pb.DisputeChargeRequest, context: grpc.aio.ServicerContext
    ) -> pb.DisputeChargeResponse:
        async def operation(owner: Owner, claim: Claim[Dispute] | None) -> Dispute:
            return await self._charges.open_dispute(owner, request.charge_id, claim)

        build = self._with_dispute(pb.DisputeChargeResponse)
        return await idempotent_rpc(
            self._runner, context, request, pb.DisputeChargeResponse, build, operation
        )

    @rpc
    async def CloseDispute(
        self, request: pb.CloseDisputeRequest, context: grpc.aio.ServicerContext
    ) -> pb.CloseDisputeResponse:
        async def operation(owner: Owner, claim: Claim[Dispute] | None) -> Dispute:
            return await self._charges.close_dispute_by_id(owner, request.dispute_id, request.outcome, claim)

        build = self._with_dispute(pb.CloseDisputeResponse)
        return await idempotent_rpc(self._runner, context, request, pb.CloseDisputeResponse, build, operation)

    @rpc
    async def DailyVolume(
        self, request: pb.DailyVolumeRequest, context: grpc.aio.ServicerContext
    ) -> pb.DailyVolumeResponse:
        first, count, volumes = await self._charges.daily_volume(
            owner_from_caller(request.caller), request.days
        )
        return pb.DailyVolumeResponse(
            days=[
                pb.DayVolume(day=int(v.day.timestamp()), currency=v.currency, amount=v.amount, count=v.count)
                for v in volumes
            ],
            first_day=int(first.timestamp()),
            day_count=count,
        )
