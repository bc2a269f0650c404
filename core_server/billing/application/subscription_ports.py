"""What the subscription use cases need from storage; the PostgreSQL adapter is
billing/storage/subscription_repository.py.

A subscription is written like a charge: created in one statement (with its base item, its first
invoice, its events and, with an Idempotency-Key, the key's claim and answer), then changed only by
its actor in fenced saves of one statement each (kernel/storage/fenced_save.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.subscription import Subscription
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import FirstClaim, TurnWrite
from core_server.kernel.domain.environment import Environment


@dataclass(frozen=True, slots=True)
class SubscriptionQuery:
    merchant_id: str
    environment: Environment
    customer_id: str | None = None
    status: str | None = None
    price_id: str | None = None
    limit: int = 10
    starting_after: str | None = None


@dataclass(frozen=True, slots=True)
class InvoiceQuery:
    merchant_id: str
    environment: Environment
    subscription_id: str | None = None
    customer_id: str | None = None
    status: str | None = None
    limit: int = 10
    starting_after: str | None = None


class SubscriptionRepository(Protocol):
    async def insert_new(
        self, subscription: Subscription, write: TurnWrite, claim: FirstClaim | None
    ) -> bool:
        """The subscription with its items, prorations and invoices, its events and (with `claim`) the
        key's claim and answer, in one statement; False when the key was not free (nothing written).
        Raises IdCollision for a taken id."""

    async def load_for_activation(self, subscription_id: str) -> tuple[Subscription, int] | None:
        """The subscription for its actor, with every item, the prorations not yet billed and its OPEN
        invoices; takes the fence (bumps the row's fence token) and returns it."""

    async def save(
        self, subscription: Subscription, fence: int, write: TurnWrite, previous: Subscription | None = None
    ) -> None:
        """Fenced write of the row, its items, prorations and touched invoices, events and answer in one
        statement; StaleFence when the fence moved (nothing written). `previous`: the state as this process
        last saved or loaded it; children equal to theirs there are not written again."""

    async def get(
        self, merchant_id: str, environment: Environment, subscription_id: str
    ) -> Subscription | None:
        """The tenant's subscription with its items (read-only: no fence)."""

    async def find(self, subscription_id: str) -> Subscription | None:
        """Any tenant's subscription by id, for the billing run (read-only: no fence)."""

    async def due_for_billing(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        """Ids of subscriptions with a billing step due at their merchant's time for `claim.now` (trial or
        period end, a dunning retry, the UNPAID cancel, a notice), claimed with `claim` (the kernel's
        job claims) so that two cores running the billing run take different batches; only `owner`'s,
        unclaimed, when given."""

    async def find_by_idempotency_key(
        self, merchant_id: str, environment: Environment, key: str
    ) -> Subscription | None: ...

    async def list(self, query: SubscriptionQuery) -> Page[Subscription]:
        """Newest first, with `total_count`."""

    async def exists(self, merchant_id: str, environment: Environment, subscription_id: str) -> bool: ...

    async def get_invoice(
        self, merchant_id: str, environment: Environment, invoice_id: str
    ) -> Invoice | None: ...

    async def list_invoices(self, query: InvoiceQuery) -> Page[Invoice]:
        """Newest first, with `total_count`."""

    async def invoice_exists(self, merchant_id: str, environment: Environment, invoice_id: str) -> bool: ...

    async def last_paid_invoice(self, subscription_id: str) -> Invoice | None:
        """The newest PAID invoice of a period (billing reason create, cycle or resume)."""
