"""PortalServicer: the PortalService RPCs over the portal use cases (a create's stored answer sealed)."""

from __future__ import annotations

import grpc
from connect.v1 import portal_pb2, portal_service_pb2_grpc
from connect.v1 import portal_service_pb2 as pb

from core_server.billing.application.portal_sessions import CreatedPortalSession, PortalSessionService
from core_server.billing.application.portal_view import (
    dumps,
    portal_invoice_view,
    portal_page_view,
    portal_session_view,
)
from core_server.billing.application.subscription_view import subscription_json
from core_server.billing.domain.portal_session import token_digest
from core_server.billing.transport.customer_servicer import card_from_pb, payment_method_to_pb
from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.domain.replays import Replay
from core_server.kernel.transport.mapping import api_scope, idempotency_from_pb, owner_from_caller
from core_server.rpc.status import answer, rpc


def session_to_pb(created: CreatedPortalSession) -> portal_pb2.PortalSession:
    view = portal_session_view(created.session, created.url)
    return portal_pb2.PortalSession(id=created.session.id, object_json=dumps(view))


def _serialized(response: pb.UpdatePaymentMethodResponse) -> bytes:
    return bytes(response.SerializeToString())


class PortalServicer(portal_service_pb2_grpc.PortalServiceServicer):
    def __init__(self, portal: PortalSessionService, runner: IdempotentRunner) -> None:
        self._portal = portal
        self._runner = runner

    @rpc
    async def CreatePortalSession(
        self, request: pb.CreatePortalSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreatePortalSessionResponse:
        owner = owner_from_caller(request.caller)
        idempotency = idempotency_from_pb(api_scope(owner), request.idempotency)

        async def operation(_claim: object) -> pb.CreatePortalSessionResponse:
            created = await self._portal.create(
                owner, customer_id=request.customer_id, return_url=request.return_url
            )
            return pb.CreatePortalSessionResponse(session=session_to_pb(created))

        def render(response: pb.CreatePortalSessionResponse) -> bytes:
            assert idempotency is not None  # render runs only for requests with a key
            return self._portal.seal_answer(idempotency, response.SerializeToString())

        result = await self._runner.run(idempotency, render, operation)
        if isinstance(result, Replay):
            assert idempotency is not None
            result = Replay(self._portal.open_answer(idempotency, result.response))
        return answer(context, pb.CreatePortalSessionResponse, result, lambda fresh: fresh)

    @rpc
    async def ResolvePortalSession(
        self, request: pb.ResolvePortalSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.ResolvePortalSessionResponse:
        page = await self._portal.page(
            request.token,
            after=request.subscriptions_after or None,
            only=request.subscription_id or None,
        )
        return pb.ResolvePortalSessionResponse(
            page=portal_pb2.PortalPage(view_json=dumps(portal_page_view(page)))
        )

    @rpc
    async def GetPortalInvoice(
        self, request: pb.GetPortalInvoiceRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetPortalInvoiceResponse:
        found = await self._portal.invoice(request.token, request.invoice_id)
        return pb.GetPortalInvoiceResponse(
            page=portal_pb2.PortalPage(view_json=dumps(portal_invoice_view(found)))
        )

    @rpc
    async def UpdatePaymentMethod(
        self, request: pb.UpdatePaymentMethodRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdatePaymentMethodResponse:
        async def operation(_claim: object) -> pb.UpdatePaymentMethodResponse:
            method = await self._portal.update_payment_method(
                request.token, request.anti_forgery_token, card_from_pb(request.card)
            )
            return pb.UpdatePaymentMethodResponse(payment_method=payment_method_to_pb(method))

        # The form's key, scoped to the session's link: a double post vaults the card once.
        idempotency = idempotency_from_pb(f"portal:{token_digest(request.token)}", request.idempotency)
        result = await self._runner.run(idempotency, _serialized, operation)
        return answer(context, pb.UpdatePaymentMethodResponse, result, lambda fresh: fresh)

    @rpc
    async def CancelAtPeriodEnd(
        self, request: pb.CancelAtPeriodEndRequest, context: grpc.aio.ServicerContext
    ) -> pb.CancelAtPeriodEndResponse:
        subscription = await self._portal.cancel_at_period_end(
            request.token, request.anti_forgery_token, request.subscription_id
        )
        return pb.CancelAtPeriodEndResponse(subscription_json=subscription_json(subscription))
