"""CheckoutServicer: the public hosted-checkout RPCs."""

from __future__ import annotations

import grpc
from connect.v1 import checkout_service_pb2 as pb
from connect.v1 import checkout_service_pb2_grpc

from core_server.kernel.transport.mapping import idempotency_from_pb
from core_server.payments.application.checkout import CheckoutService
from core_server.payments.transport.mapping import card_from_pb, checkout_page_to_pb, checkout_result_to_pb
from core_server.rpc.status import answer, rpc


def checkout_scope(charge_id: str) -> str:
    return f"checkout:{charge_id}"


class CheckoutServicer(checkout_service_pb2_grpc.CheckoutServiceServicer):
    def __init__(self, checkout: CheckoutService) -> None:
        self._checkout = checkout

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
        result = await self._checkout.complete(
            request.charge_id,
            request.payment_method,
            card_from_pb(request.card, request.HasField("card")),
            request.paypal.email if request.HasField("paypal") else None,
            idempotency_from_pb(checkout_scope(request.charge_id), request.idempotency),
            lambda r: pb.CompleteCheckoutResponse(result=checkout_result_to_pb(r)).SerializeToString(),
        )
        return answer(
            context,
            pb.CompleteCheckoutResponse,
            result,
            lambda fresh: pb.CompleteCheckoutResponse(result=checkout_result_to_pb(fresh)),
        )

    @rpc
    async def CancelCheckout(
        self, request: pb.CancelCheckoutRequest, context: grpc.aio.ServicerContext
    ) -> pb.CancelCheckoutResponse:
        return pb.CancelCheckoutResponse(redirect_url=await self._checkout.cancel(request.charge_id))
