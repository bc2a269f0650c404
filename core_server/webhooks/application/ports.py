"""The ports of webhook endpoints, the event log and delivery; storage and senders implement them."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.sealed import Sealed
from core_server.webhooks.domain.events import StoredEvent
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import EndpointChanges, WebhookEndpoint
from core_server.webhooks.domain.webhook_url import WebhookTarget


class EndpointLimitReached(Exception):
    """The merchant already has MAX_ENDPOINTS webhook endpoints."""


class SecretSealer(Protocol):
    """Encrypts secrets at rest under the current master key; `context` binds a sealed value to its row.
    `open` picks the key by the sealed value's key id and fails for a key not configured."""

    def seal(self, plaintext: str, context: str) -> Sealed: ...

    def open(self, sealed: Sealed, context: str) -> str: ...


class HostResolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[str]:
        """Every address the host resolves to; empty when it does not resolve."""


class WebhookEndpointRepository(Protocol):
    async def insert_within_limit(
        self,
        endpoint: WebhookEndpoint,
        sealed_secret: Sealed,
        limit: int,
        completion: IdempotencyCompletion | None,
    ) -> None:
        """Endpoint and idempotent answer in one transaction; refuses atomically (EndpointLimitReached)
        once the merchant has `limit` endpoints; IdCollision on a taken id."""

    async def list(self, merchant_id: str, environment: Environment) -> list[WebhookEndpoint]:
        """Newest first."""

    async def get(
        self, merchant_id: str, environment: Environment, endpoint_id: str
    ) -> WebhookEndpoint | None: ...

    async def update(
        self, merchant_id: str, environment: Environment, endpoint_id: str, changes: EndpointChanges
    ) -> WebhookEndpoint | None:
        """Applies the changed fields only; None when the endpoint is gone."""

    async def delete(self, merchant_id: str, environment: Environment, endpoint_id: str) -> bool:
        """Removes the endpoint with its deliveries and attempts."""

    async def sealed_secret(self, endpoint_id: str) -> Sealed | None: ...


@dataclass(frozen=True, slots=True)
class EventQuery:
    merchant_id: str
    environment: Environment
    limit: int
    type: str | None = None
    type_prefix: str | None = None
    starting_after: str | None = None
    object_id: str | None = None


class EventRepository(Protocol):
    async def list(self, query: EventQuery) -> Page[StoredEvent]:
        """Newest first, cursor after `starting_after`."""

    async def cursor_exists(self, query: EventQuery) -> bool: ...

    async def get(self, event_id: str) -> StoredEvent | None: ...

    async def requeue(self, event: StoredEvent, now: datetime) -> builtins.list[WebhookDelivery]:
        """Queues the event again for every endpoint that receives its type now (a resend)."""


@dataclass(frozen=True, slots=True)
class ClaimedDelivery:
    """A due delivery leased to one worker until `lease_until`; `claim_token` fences its record."""

    delivery_id: str
    claim_token: str
    endpoint_id: str
    merchant_id: str
    environment: Environment
    url: str
    sealed_secret: Sealed
    event_id: str
    event_type: str
    payload: Mapping[str, Any]
    attempt_count: int


class DeliveryQueue(Protocol):
    async def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        *,
        per_endpoint: int,
        skip_endpoints: Sequence[str],
        per_merchant: int,
        merchant_busy: Mapping[str, int],
        reserve: int,
        token: str,
        endpoint_busy: Mapping[str, int] | None = None,
        ahead: int = 0,
    ) -> list[ClaimedDelivery]:
        """Leases up to `limit` due deliveries (FOR UPDATE SKIP LOCKED) of endpoints not paused, at most
        `per_endpoint` each less its attempts in flight here (`endpoint_busy`; one for an endpoint on
        probation) plus `ahead` claimed ahead of that quota, which rank after every other candidate;
        round-robin over merchants: the merchant
        holding the fewest slots (`merchant_busy` counts this process's attempts in flight) is served
        first, none beyond `per_merchant`; and a merchant's second and further slots never take the last
        `reserve` free ones, kept for merchants with nothing in flight."""

    async def announce(self) -> None:
        """Wakes every dispatcher (a backlog is left after a full claim: peers should take their share)."""

    async def record(self, records: Sequence[AttemptRecord]) -> list[bool]:
        """Stores the attempts in one statement, moves each delivery on (succeeded, retry at
        `retry_at`, or failed when None) unless a resend re-queued it meanwhile, and updates the
        endpoints' health and pause (webhook_pause.py, each endpoint's outcomes in order). One answer
        per record, in order: True when a resend re-queued it (the delivery is due again now)."""

    async def list_for_endpoint(
        self, endpoint_id: str, limit: int, starting_after: str | None, tenant: str = ""
    ) -> Page[WebhookDelivery]:
        """Newest first, each with its attempts oldest first; `tenant` (the endpoint's merchant) is
        whose share of the list slots it takes (scan_gate)."""

    async def delivery_exists(self, endpoint_id: str, delivery_id: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class SendResult:
    status_code: int | None
    error: str | None
    timed_out: bool = False
    """No answer (or no connection) within the time-out: the attempt held its slot the whole time. Kept
    apart from `error`, whose text does not tell a dropped connection from a refused one."""


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One finished attempt, to be recorded: `now` is real time (the endpoint's pause runs on it)."""

    claimed: ClaimedDelivery
    attempt: DeliveryAttempt
    retry_at: datetime | None
    timed_out: bool
    now: datetime


class WebhookSender(Protocol):
    async def send(
        self,
        target: WebhookTarget,
        address: str,
        body: bytes,
        headers: Mapping[str, str],
        timeout: float,  # noqa: ASYNC109 - the HTTP client's own per-request limit (httpx.Timeout)
    ) -> SendResult:
        """One POST to `target`, connecting to the already checked `address`; never follows redirects."""


class WakeupSource(Protocol):
    """Calls `wake` whenever new deliveries were committed (PostgreSQL LISTEN/NOTIFY in production)."""

    async def start(self, wake: Callable[[], None]) -> None: ...

    async def close(self) -> None: ...
