"""MerchantServicer: sign-up, tokens and profile."""

from __future__ import annotations

import grpc
from connect.v1 import merchant_service_pb2 as pb
from connect.v1 import merchant_service_pb2_grpc

from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.transport.idempotent_rpc import keyed_rpc
from core_server.merchants.application.merchants import MerchantService
from core_server.merchants.transport.mapping import SCHEDULE_FROM_PB, merchant_to_pb
from core_server.rpc.status import rpc

SIGNUP_SCOPE = "signup"
PROFILE_FIELDS = (
    "business_name",
    "logo_url",
    "brand_color",
    "support_email",
    "payout_account_number",
    "settlement_currency",
)


class MerchantServicer(merchant_service_pb2_grpc.MerchantServiceServicer):
    def __init__(self, merchants: MerchantService, runner: IdempotentRunner) -> None:
        self._merchants = merchants
        self._runner = runner

    @rpc
    async def CreateMerchant(
        self, request: pb.CreateMerchantRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateMerchantResponse:
        async def operation(_claim: object) -> pb.CreateMerchantResponse:
            merchant = await self._merchants.create(
                request.email, request.password, request.business_name, request.client_address
            )
            return pb.CreateMerchantResponse(merchant=merchant_to_pb(merchant))

        return await keyed_rpc(
            self._runner, context, SIGNUP_SCOPE, request, pb.CreateMerchantResponse, lambda r: r, operation
        )

    @rpc
    async def IssueToken(
        self, request: pb.IssueTokenRequest, context: grpc.aio.ServicerContext
    ) -> pb.IssueTokenResponse:
        token, lifetime = await self._merchants.issue_token(
            request.email, request.password, request.client_address
        )
        return pb.IssueTokenResponse(access_token=token, token_type="bearer", expires_in=lifetime)

    @rpc
    async def GetMerchant(
        self, request: pb.GetMerchantRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetMerchantResponse:
        return pb.GetMerchantResponse(merchant=merchant_to_pb(await self._merchants.get(request.merchant_id)))

    @rpc
    async def UpdateMerchant(
        self, request: pb.UpdateMerchantRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateMerchantResponse:
        changes = {name: getattr(request, name) for name in PROFILE_FIELDS if request.HasField(name)}
        if request.HasField("payout_schedule"):
            changes["payout_schedule"] = SCHEDULE_FROM_PB.get(request.payout_schedule, "")
        password = request.current_password if request.HasField("current_password") else None
        merchant = await self._merchants.update(request.merchant_id, changes, password)
        return pb.UpdateMerchantResponse(merchant=merchant_to_pb(merchant))

    @rpc
    async def ChangePassword(
        self, request: pb.ChangePasswordRequest, context: grpc.aio.ServicerContext
    ) -> pb.ChangePasswordResponse:
        current = request.current_password if request.HasField("current_password") else None
        new = request.new_password if request.HasField("new_password") else None
        merchant = await self._merchants.change_password(request.merchant_id, current, new)
        return pb.ChangePasswordResponse(merchant=merchant_to_pb(merchant))
