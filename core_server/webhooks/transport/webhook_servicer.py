"""WebhookServicer: the WebhookService RPCs over the endpoint and event use cases."""

from __future__ import annotations

import dataclasses
from typing import Any

import grpc
from connect.v1 import webhook_service_pb2 as pb
from connect.v1 import webhook_service_pb2_grpc

from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.errors import NotFound
from core_server.kernel.transport.idempotent_rpc import SecretApart, idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.rpc.status import rpc
from core_server.webhooks.application.events import EventService
from core_server.webhooks.application.webhooks import WebhookEndpointService
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint
from core_server.webhooks.transport.webhook_mapping import (
    ENDPOINT_STATUS_FROM_PB,
    delivery_to_pb,
    endpoint_to_pb,
    event_to_pb,
    reveal_secret_pb,
)


def _optional(request: Any, field: str) -> Any:
    return getattr(request, field) if request.HasField(field) else None


def _as_is(response: Any) -> Any:
    """For operations that already answer with their response message."""
    return response


def _created(endpoint: WebhookEndpoint) -> pb.CreateWebhookEndpointResponse:
    return pb.CreateWebhookEndpointResponse(webhook_endpoint=endpoint_to_pb(endpoint))


def _without_secret(endpoint: WebhookEndpoint) -> WebhookEndpoint:
    return dataclasses.replace(endpoint, secret=None)


class WebhookServicer(webhook_service_pb2_grpc.WebhookServiceServicer):
    def __init__(
        self, webhooks: WebhookEndpointService, events: EventService, runner: IdempotentRunner
    ) -> None:
        self._webhooks = webhooks
        self._events = events
        self._runner = runner

    @rpc
    async def CreateWebhookEndpoint(
        self, request: pb.CreateWebhookEndpointRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateWebhookEndpointResponse:
        async def operation(owner: Owner, claim: Claim[WebhookEndpoint] | None) -> WebhookEndpoint:
            return await self._webhooks.create(
                owner, request.url, list(request.events), _optional(request, "description"), claim
            )

        async def restore(replayed: pb.CreateWebhookEndpointResponse) -> None:
            try:
                # The same request gets the same answer, secret included, while the endpoint exists.
                secret = await self._webhooks.reveal_secret(
                    owner_from_caller(request.caller), replayed.webhook_endpoint.id
                )
                reveal_secret_pb(replayed.webhook_endpoint, secret or "")
            except NotFound:
                reveal_secret_pb(replayed.webhook_endpoint, "")

        # The stored answer never holds the secret: idempotency records are not encrypted.
        kept = SecretApart(_without_secret, restore)
        return await idempotent_rpc(
            self._runner, context, request, pb.CreateWebhookEndpointResponse, _created, operation, secret=kept
        )

    @rpc
    async def ListWebhookEndpoints(
        self, request: pb.ListWebhookEndpointsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListWebhookEndpointsResponse:
        endpoints = await self._webhooks.list(owner_from_caller(request.caller))
        return pb.ListWebhookEndpointsResponse(webhook_endpoints=[endpoint_to_pb(e) for e in endpoints])

    @rpc
    async def GetWebhookEndpoint(
        self, request: pb.GetWebhookEndpointRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetWebhookEndpointResponse:
        endpoint = await self._webhooks.get(owner_from_caller(request.caller), request.webhook_endpoint_id)
        return pb.GetWebhookEndpointResponse(webhook_endpoint=endpoint_to_pb(endpoint))

    @rpc
    async def UpdateWebhookEndpoint(
        self, request: pb.UpdateWebhookEndpointRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateWebhookEndpointResponse:
        status = None
        if request.HasField("status"):
            status = ENDPOINT_STATUS_FROM_PB.get(request.status, "")

        async def operation(owner: Owner, _claim: object) -> pb.UpdateWebhookEndpointResponse:
            endpoint = await self._webhooks.update(
                owner,
                request.webhook_endpoint_id,
                url=_optional(request, "url"),
                events=list(request.events.types) if request.HasField("events") else None,
                description=_optional(request, "description"),
                status=status,
            )
            return pb.UpdateWebhookEndpointResponse(webhook_endpoint=endpoint_to_pb(endpoint))

        return await idempotent_rpc(
            self._runner, context, request, pb.UpdateWebhookEndpointResponse, _as_is, operation
        )

    @rpc
    async def DeleteWebhookEndpoint(
        self, request: pb.DeleteWebhookEndpointRequest, context: grpc.aio.ServicerContext
    ) -> pb.DeleteWebhookEndpointResponse:
        async def operation(owner: Owner, _claim: object) -> pb.DeleteWebhookEndpointResponse:
            deleted = await self._webhooks.delete(owner, request.webhook_endpoint_id)
            return pb.DeleteWebhookEndpointResponse(webhook_endpoint_id=deleted)

        return await idempotent_rpc(
            self._runner, context, request, pb.DeleteWebhookEndpointResponse, _as_is, operation
        )

    @rpc
    async def ListWebhookDeliveries(
        self, request: pb.ListWebhookDeliveriesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListWebhookDeliveriesResponse:
        page = await self._webhooks.deliveries(
            owner_from_caller(request.caller),
            request.webhook_endpoint_id,
            **page_query(request),
        )
        return pb.ListWebhookDeliveriesResponse(
            deliveries=[delivery_to_pb(d) for d in page.items],
            **page_fields(page, pb.ListWebhookDeliveriesResponse),
        )

    @rpc
    async def ListEvents(
        self, request: pb.ListEventsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListEventsResponse:
        page = await self._events.list(
            owner_from_caller(request.caller),
            **page_query(request),
            type_filter=request.type or None,
            object_id=request.object_id or None,
        )
        return pb.ListEventsResponse(
            events=[event_to_pb(e) for e in page.items], **page_fields(page, pb.ListEventsResponse)
        )

    @rpc
    async def GetEvent(
        self, request: pb.GetEventRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetEventResponse:
        event = await self._events.get(owner_from_caller(request.caller), request.event_id)
        return pb.GetEventResponse(event=event_to_pb(event))

    @rpc
    async def ResendEvent(
        self, request: pb.ResendEventRequest, context: grpc.aio.ServicerContext
    ) -> pb.ResendEventResponse:
        async def operation(owner: Owner, _claim: object) -> pb.ResendEventResponse:
            deliveries = await self._events.resend(owner, request.event_id)
            return pb.ResendEventResponse(deliveries=[delivery_to_pb(d) for d in deliveries])

        return await idempotent_rpc(self._runner, context, request, pb.ResendEventResponse, _as_is, operation)
