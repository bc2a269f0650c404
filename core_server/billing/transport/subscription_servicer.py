"""SubscriptionServicer: the SubscriptionService RPCs over the subscription and invoice use cases."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from connect.v1 import subscription_pb2, subscription_service_pb2_grpc
from connect.v1 import subscription_service_pb2 as pb

from core_server.billing.application.invoices import InvoiceService
from core_server.billing.application.subscription_view import (
    invoice_json,
    preview_json,
    subscription_item_json,
    subscription_json,
)
from core_server.billing.application.subscriptions import SubscriptionService
from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_changes import (
    AddItem,
    Preview,
    PreviewChange,
    PriceChange,
    RemoveItem,
    UpdateItem,
)
from core_server.billing.domain.subscription_item import SubscriptionItem
from core_server.billing.transport.status_mapping import INVOICE_STATUS_FROM_PB, SUBSCRIPTION_STATUS_FROM_PB
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.errors import ParameterMissing
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.rpc.status import rpc

T = TypeVar("T")


def subscription_to_pb(subscription: Subscription) -> subscription_pb2.Subscription:
    return subscription_pb2.Subscription(id=subscription.id, object_json=subscription_json(subscription))


def item_to_pb(item: SubscriptionItem) -> subscription_pb2.SubscriptionItem:
    return subscription_pb2.SubscriptionItem(id=item.id, object_json=subscription_item_json(item))


def invoice_to_pb(invoice: Invoice) -> subscription_pb2.Invoice:
    return subscription_pb2.Invoice(id=invoice.id, object_json=invoice_json(invoice))


def change_from_pb(request: pb.PreviewSubscriptionChangeRequest) -> PreviewChange:
    """The oneof as the domain's preview change; a request without one is `parameter_missing`."""
    match request.WhichOneof("change"):
        case "price_change":
            price = request.price_change
            return PriceChange(price.price_id, _optional(price, "proration_behavior"))
        case "add_item":
            added = request.add_item
            return AddItem(added.price_id, added.quantity or 1, _optional(added, "proration_behavior"))
        case "update_item":
            return UpdateItem(request.update_item.item_id, request.update_item.quantity)
        case "remove_item":
            return RemoveItem(request.remove_item.item_id, request.remove_item.immediate)
    # The gateway never sends a request without one; a direct gRPC caller is told which field leads.
    raise ParameterMissing("price_id")


def _preview_answer(preview: Preview) -> pb.PreviewSubscriptionChangeResponse:
    return pb.PreviewSubscriptionChangeResponse(
        preview=subscription_pb2.SubscriptionPreview(object_json=preview_json(preview))
    )


def _optional(request: Any, name: str) -> Any:
    return getattr(request, name) if request.HasField(name) else None


class SubscriptionServicer(subscription_service_pb2_grpc.SubscriptionServiceServicer):
    def __init__(
        self, subscriptions: SubscriptionService, invoices: InvoiceService, runner: IdempotentRunner
    ) -> None:
        self._subscriptions = subscriptions
        self._invoices = invoices
        self._runner = runner

    def _idempotent(
        self,
        context: grpc.aio.ServicerContext,
        request: Any,
        response_type: Any,
        build: Callable[[T], Any],
        operation: Callable[[Owner, Claim[T] | None], Awaitable[T]],
    ) -> Awaitable[Any]:
        return idempotent_rpc(self._runner, context, request, response_type, build, operation)

    def _subscription_move(
        self,
        context: grpc.aio.ServicerContext,
        request: Any,
        response_type: Any,
        operation: Callable[[Owner, Claim[Subscription] | None], Awaitable[Subscription]],
    ) -> Awaitable[Any]:
        def build(subscription: Subscription) -> Any:
            return response_type(subscription=subscription_to_pb(subscription))

        return self._idempotent(context, request, response_type, build, operation)

    def _item_move(
        self,
        context: grpc.aio.ServicerContext,
        request: Any,
        response_type: Any,
        operation: Callable[[Owner, Claim[SubscriptionItem] | None], Awaitable[SubscriptionItem]],
    ) -> Awaitable[Any]:
        def build(item: SubscriptionItem) -> Any:
            return response_type(item=item_to_pb(item))

        return self._idempotent(context, request, response_type, build, operation)

    # Subscriptions

    @rpc
    async def CreateSubscription(
        self, request: pb.CreateSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateSubscriptionResponse:
        async def operation(owner: Owner, claim: Claim[Subscription] | None) -> Subscription:
            return await self._subscriptions.create(
                owner,
                customer_id=request.customer_id,
                price_id=request.price_id,
                collection_method=_optional(request, "collection_method"),
                tax_rate_id=_optional(request, "tax_rate_id"),
                metadata=dict(request.metadata),
                claim=claim,
            )

        response: pb.CreateSubscriptionResponse = await self._subscription_move(
            context, request, pb.CreateSubscriptionResponse, operation
        )
        return response

    @rpc
    async def ListSubscriptions(
        self, request: pb.ListSubscriptionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListSubscriptionsResponse:
        page = await self._subscriptions.list(
            owner_from_caller(request.caller),
            customer_id=_optional(request, "customer_id"),
            status=SUBSCRIPTION_STATUS_FROM_PB.get(request.status),
            price_id=_optional(request, "price_id"),
            **page_query(request),
        )
        return pb.ListSubscriptionsResponse(
            subscriptions=[subscription_to_pb(s) for s in page.items],
            **page_fields(page, pb.ListSubscriptionsResponse),
        )

    @rpc
    async def GetSubscription(
        self, request: pb.GetSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetSubscriptionResponse:
        subscription = await self._subscriptions.get(
            owner_from_caller(request.caller), request.subscription_id
        )
        return pb.GetSubscriptionResponse(subscription=subscription_to_pb(subscription))

    @rpc
    async def UpdateSubscription(
        self, request: pb.UpdateSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateSubscriptionResponse:
        async def operation(owner: Owner, claim: Claim[Subscription] | None) -> Subscription:
            return await self._subscriptions.update(
                owner,
                request.subscription_id,
                price_id=_optional(request, "price_id"),
                proration_behavior=_optional(request, "proration_behavior"),
                metadata=dict(request.metadata.values) if request.HasField("metadata") else None,
                tax_rate_id=_optional(request, "tax_rate_id"),
                claim=claim,
            )

        response: pb.UpdateSubscriptionResponse = await self._subscription_move(
            context, request, pb.UpdateSubscriptionResponse, operation
        )
        return response

    @rpc
    async def CancelSubscription(
        self, request: pb.CancelSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CancelSubscriptionResponse:
        async def operation(owner: Owner, claim: Claim[Subscription] | None) -> Subscription:
            return await self._subscriptions.cancel(
                owner,
                request.subscription_id,
                at_period_end=request.at_period_end,
                prorate=request.prorate,
                claim=claim,
            )

        response: pb.CancelSubscriptionResponse = await self._subscription_move(
            context, request, pb.CancelSubscriptionResponse, operation
        )
        return response

    @rpc
    async def PauseSubscription(
        self, request: pb.PauseSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.PauseSubscriptionResponse:
        async def operation(owner: Owner, claim: Claim[Subscription] | None) -> Subscription:
            return await self._subscriptions.pause(owner, request.subscription_id, claim=claim)

        response: pb.PauseSubscriptionResponse = await self._subscription_move(
            context, request, pb.PauseSubscriptionResponse, operation
        )
        return response

    @rpc
    async def ResumeSubscription(
        self, request: pb.ResumeSubscriptionRequest, context: grpc.aio.ServicerContext
    ) -> pb.ResumeSubscriptionResponse:
        async def operation(owner: Owner, claim: Claim[Subscription] | None) -> Subscription:
            return await self._subscriptions.resume(owner, request.subscription_id, claim=claim)

        response: pb.ResumeSubscriptionResponse = await self._subscription_move(
            context, request, pb.ResumeSubscriptionResponse, operation
        )
        return response

    # Items

    @rpc
    async def AddSubscriptionItem(
        self, request: pb.AddSubscriptionItemRequest, context: grpc.aio.ServicerContext
    ) -> pb.AddSubscriptionItemResponse:
        async def operation(owner: Owner, claim: Claim[SubscriptionItem] | None) -> SubscriptionItem:
            return await self._subscriptions.add_item(
                owner,
                request.subscription_id,
                price_id=request.price_id,
                # Proto's 0 is "not sent": the gateway always sends the spec's default 1.
                quantity=request.quantity or 1,
                proration_behavior=_optional(request, "proration_behavior"),
                metadata=dict(request.metadata),
                claim=claim,
            )

        response: pb.AddSubscriptionItemResponse = await self._item_move(
            context, request, pb.AddSubscriptionItemResponse, operation
        )
        return response

    @rpc
    async def ListSubscriptionItems(
        self, request: pb.ListSubscriptionItemsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListSubscriptionItemsResponse:
        page = await self._subscriptions.list_items(
            owner_from_caller(request.caller),
            request.subscription_id,
            **page_query(request),
        )
        return pb.ListSubscriptionItemsResponse(
            items=[item_to_pb(item) for item in page.items],
            **page_fields(page, pb.ListSubscriptionItemsResponse),
        )

    @rpc
    async def UpdateSubscriptionItem(
        self, request: pb.UpdateSubscriptionItemRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateSubscriptionItemResponse:
        async def operation(owner: Owner, claim: Claim[SubscriptionItem] | None) -> SubscriptionItem:
            return await self._subscriptions.update_item(
                owner,
                request.subscription_id,
                request.item_id,
                quantity=request.quantity,
                proration_behavior=_optional(request, "proration_behavior"),
                claim=claim,
            )

        response: pb.UpdateSubscriptionItemResponse = await self._item_move(
            context, request, pb.UpdateSubscriptionItemResponse, operation
        )
        return response

    @rpc
    async def RemoveSubscriptionItem(
        self, request: pb.RemoveSubscriptionItemRequest, context: grpc.aio.ServicerContext
    ) -> pb.RemoveSubscriptionItemResponse:
        async def operation(owner: Owner, claim: Claim[SubscriptionItem] | None) -> SubscriptionItem:
            return await self._subscriptions.remove_item(
                owner, request.subscription_id, request.item_id, immediate=request.immediate, claim=claim
            )

        response: pb.RemoveSubscriptionItemResponse = await self._item_move(
            context, request, pb.RemoveSubscriptionItemResponse, operation
        )
        return response

    @rpc
    async def PreviewSubscriptionChange(
        self, request: pb.PreviewSubscriptionChangeRequest, context: grpc.aio.ServicerContext
    ) -> pb.PreviewSubscriptionChangeResponse:
        async def operation(owner: Owner, claim: Claim[Preview] | None) -> Preview:
            # Nothing is written: the runner stores the answer under the key itself. The request is read
            # here, after the key: a reused key with another body is a 409 before any 400.
            return await self._subscriptions.preview(owner, request.subscription_id, change_from_pb(request))

        return await self._idempotent(
            context, request, pb.PreviewSubscriptionChangeResponse, _preview_answer, operation
        )

    # Invoices

    @rpc
    async def GetInvoice(
        self, request: pb.GetInvoiceRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetInvoiceResponse:
        invoice = await self._invoices.get(owner_from_caller(request.caller), request.invoice_id)
        return pb.GetInvoiceResponse(invoice=invoice_to_pb(invoice))

    @rpc
    async def ListInvoices(
        self, request: pb.ListInvoicesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListInvoicesResponse:
        page = await self._invoices.list(
            owner_from_caller(request.caller),
            subscription_id=_optional(request, "subscription_id"),
            customer_id=_optional(request, "customer_id"),
            status=INVOICE_STATUS_FROM_PB.get(request.status),
            **page_query(request),
        )
        return pb.ListInvoicesResponse(
            invoices=[invoice_to_pb(invoice) for invoice in page.items],
            **page_fields(page, pb.ListInvoicesResponse),
        )

    @rpc
    async def VoidInvoice(
        self, request: pb.VoidInvoiceRequest, context: grpc.aio.ServicerContext
    ) -> pb.VoidInvoiceResponse:
        async def operation(owner: Owner, claim: Claim[Invoice] | None) -> Invoice:
            return await self._subscriptions.void_invoice(owner, request.invoice_id, claim=claim)

        def build(invoice: Invoice) -> pb.VoidInvoiceResponse:
            return pb.VoidInvoiceResponse(invoice=invoice_to_pb(invoice))

        response: pb.VoidInvoiceResponse = await self._idempotent(
            context, request, pb.VoidInvoiceResponse, build, operation
        )
        return response
