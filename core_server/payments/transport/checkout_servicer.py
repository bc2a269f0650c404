"""CheckoutServicer: the public hosted-checkout RPCs."""

from __future__ import annotations

import grpc
from connect.v1 import checkout_service_pb2 as pb
from connect.v1 import checkout_service_pb2_grpc

from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.transport.idempotent_rpc import keyed_rpc
from core_server.payments.application.charge_commands import CheckoutResult
from core_server.payments.application.checkout import CheckoutService
from core_server.payments.transport.mapping import card_from_pb, checkout_page_to_pb, checkout_result_to_pb
from core_server.rpc.status import rpc


def checkout_scope(charge_id: str) -> str:
    return f"checkout:{charge_id}"


class CheckoutServicer(checkout_service_pb2_grpc.CheckoutServiceServicer):
    def __init__(self, checkout: CheckoutService, runner: IdempotentRunner) -> None:
        self._checkout = checkout
        self._runner = runner

    @rpc
    async def GetCheckoutPage(
        self, request: pb.GetCheckoutPageRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetCheckoutPageResponse:
        page = await self._checkout.page(request.charge_id)
        return pb.GetCheckoutPageResponse(page=checkout_page_to_pb(page))

    @rpc
    async def CompleteCheckout(
        self, request: pb.CompleteCheckoutRequest, context: grpc.aio.ServicerContext
    ) -> pb.CompleteCheckoutResponse:
        async def operation(claim: Claim[CheckoutResult] | None) -> CheckoutResult:
            return await self._checkout.complete(
                request.charge_id,
                request.payment_method,
                card_from_pb(request.card, request.HasField("card")),
                request.paypal.email if request.HasField("paypal") else None,
                claim,
            )

        return await keyed_rpc(
            self._runner,
            context,
            checkout_scope(request.charge_id),
            request,
            pb.CompleteCheckoutResponse,
            lambda result: pb.CompleteCheckoutResponse(result=checkout_result_to_pb(result)),
            operation,
        )

    @rpc
    async def CancelCheckout(
        self, request: pb.CancelCheckoutRequest, context: grpc.aio.ServicerContext
    ) -> pb.CancelCheckoutResponse:
        async def operation(_claim: object) -> str:
            return await self._checkout.cancel(request.charge_id)

        # Nothing changes (the charge stays pending), but a POST with a key replays as every POST does.
        return await keyed_rpc(
            self._runner,
            context,
            checkout_scope(request.charge_id),
            request,
            pb.CancelCheckoutResponse,
            lambda url: pb.CancelCheckoutResponse(redirect_url=url),
            operation,
        )
