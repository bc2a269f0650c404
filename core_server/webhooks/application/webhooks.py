"""Webhook endpoint use cases: create (secret shown once, sealed at rest), read, change, delete."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.event_types import validate_subscription
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.webhooks.application.ports import (
    DeliveryQueue,
    EndpointLimitReached,
    HostResolver,
    SecretSealer,
    WebhookEndpointRepository,
)
from core_server.webhooks.domain.webhook_delivery import WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import (
    MAX_ENDPOINTS,
    EndpointChanges,
    WebhookEndpoint,
    WebhookEndpointStatus,
    new_webhook_secret,
    settable_status,
    validate_description,
)
from core_server.webhooks.domain.webhook_url import check_resolved, parse_webhook_url

ENDPOINT_ID_RE = re.compile(r"^we_[A-Za-z0-9]{24}$")
DELIVERY_ID_RE = re.compile(r"^whd_[A-Za-z0-9]{24}$")


def endpoint_not_found(endpoint_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' endpoints."""
    return NotFound(f"No such webhook endpoint: '{endpoint_id[:100]}'", param="id")


class WebhookEndpointService:
    def __init__(
        self,
        endpoints: WebhookEndpointRepository,
        deliveries: DeliveryQueue,
        sealer: SecretSealer,
        resolver: HostResolver,
        clocks: Clocks,
        *,
        allow_private_targets: bool = False,
    ) -> None:
        self._endpoints = endpoints
        self._deliveries = deliveries
        self._sealer = sealer
        self._resolver = resolver
        self._clocks = clocks
        # WEBHOOK_ALLOW_PRIVATE_TARGETS: TEST endpoints may name loopback/private addresses (local stacks).
        self._allow_private = allow_private_targets

    async def create(
        self,
        owner: Owner,
        url: str,
        events: Sequence[str],
        description: str | None,
        claim: Claim[WebhookEndpoint] | None = None,
    ) -> WebhookEndpoint:
        subscribed = validate_subscription(events)
        checked_description = validate_description(description)
        await self._check_url(url, owner.environment)
        now = await merchant_now(self._clocks, owner, whole_seconds=True)
        secret = new_webhook_secret()
        for endpoint_id in id_candidates("we_", 24):
            endpoint = WebhookEndpoint(
                id=endpoint_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                url=url,
                events=subscribed,
                description=checked_description,
                status=WebhookEndpointStatus.ENABLED,
                created=now,
                secret=secret,
            )
            try:
                # The secret is sealed with the endpoint id as context: only this row can open it.
                await self._endpoints.insert_within_limit(
                    endpoint,
                    self._sealer.seal(secret, endpoint_id),
                    MAX_ENDPOINTS,
                    claim.completion(endpoint) if claim is not None else None,
                )
            except IdCollision:
                continue
            except EndpointLimitReached as exc:
                raise ParameterInvalid(
                    f"A merchant may have at most {MAX_ENDPOINTS} webhook endpoints; delete one first."
                ) from exc
            return endpoint
        raise IdSpaceExhausted("ten webhook endpoint id collisions in a row")

    async def list(self, owner: Owner) -> list[WebhookEndpoint]:
        return await self._endpoints.list(owner.merchant_id, owner.environment)

    async def get(self, owner: Owner, endpoint_id: str) -> WebhookEndpoint:
        found = None
        if ENDPOINT_ID_RE.match(endpoint_id):
            found = await self._endpoints.get(owner.merchant_id, owner.environment, endpoint_id)
        if found is None:
            raise endpoint_not_found(endpoint_id)
        return found

    async def update(
        self,
        owner: Owner,
        endpoint_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        description: str | None = None,
        status: str | None = None,
    ) -> WebhookEndpoint:
        await self.get(owner, endpoint_id)
        if url is not None:
            await self._check_url(url, owner.environment)
        changes = EndpointChanges(
            url=url,
            events=validate_subscription(events) if events is not None else None,
            description=validate_description(description),
            clear_description=description == "",
            status=settable_status(status) if status is not None else None,
        )
        updated = await self._endpoints.update(owner.merchant_id, owner.environment, endpoint_id, changes)
        if updated is None:
            raise endpoint_not_found(endpoint_id)  # deleted between the read and the write
        return updated

    async def delete(self, owner: Owner, endpoint_id: str) -> str:
        if not ENDPOINT_ID_RE.match(endpoint_id) or not await self._endpoints.delete(
            owner.merchant_id, owner.environment, endpoint_id
        ):
            raise endpoint_not_found(endpoint_id)
        return endpoint_id

    async def reveal_secret(self, owner: Owner, endpoint_id: str) -> str | None:
        """The secret again, only for replaying the stored answer of the same idempotent create."""
        endpoint = await self.get(owner, endpoint_id)
        sealed = await self._endpoints.sealed_secret(endpoint.id)
        return self._sealer.open(sealed, endpoint.id) if sealed is not None else None

    async def deliveries(
        self, owner: Owner, endpoint_id: str, *, limit: int, starting_after: str | None
    ) -> Page[WebhookDelivery]:
        endpoint = await self.get(owner, endpoint_id)
        limit = page_limit(limit)
        if starting_after is not None and not (
            DELIVERY_ID_RE.match(starting_after)
            and await self._deliveries.delivery_exists(endpoint.id, starting_after)
        ):
            raise ParameterInvalid(
                f"starting_after names no delivery of this endpoint: '{starting_after[:100]}'.",
                param="starting_after",
            )
        return await self._deliveries.list_for_endpoint(
            endpoint.id, limit, starting_after, tenant=endpoint.merchant_id
        )

    async def _check_url(self, url: str, environment: Environment) -> None:
        """Syntax, then the resolved addresses (SSRF): hosts must resolve to public addresses only
        (TEST ones may also resolve to loopback/private ones when the operator allows private targets).

        A TEST host that does not resolve yet is accepted (a developer's tunnel may come up later);
        one that resolves to a forbidden address is refused, and every delivery checks again.
        """
        target = parse_webhook_url(url, environment, allow_private=self._allow_private)
        if target.ip_literal:
            return
        # Awaits DNS; nothing is held meanwhile.
        addresses = await self._resolver.resolve(target.host, target.port)
        if addresses or environment is Environment.LIVE:
            check_resolved(addresses, environment, allow_private=self._allow_private)
