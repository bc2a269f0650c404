"""The ports of the billing catalog (tax rates, plans, prices); storage implements them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core_server.billing.domain.catalog import Plan, Price
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A page of `limit` rows of an owner's list, newest first; `starting_after` is the owner's."""

    merchant_id: str
    environment: Environment
    limit: int
    starting_after: str | None


@dataclass(frozen=True, slots=True)
class TaxRateChanges:
    """A validated PATCH: None leaves a field as it is."""

    display_name: str | None = None
    active: bool | None = None


class TaxRateRepository(Protocol):
    async def insert(self, rate: TaxRate, completion: IdempotencyCompletion | None) -> None:
        """Raises IdCollision when the id exists; writes the idempotent answer in the same transaction."""

    async def get(self, merchant_id: str, environment: Environment, rate_id: str) -> TaxRate | None: ...

    async def list_page(self, query: ListQuery) -> Page[TaxRate]:
        """Newest first, `limit` rows and whether more follow; `total_count` counts all of the owner's."""

    async def active_for_country(
        self, merchant_id: str, environment: Environment, country: str
    ) -> list[TaxRate]:
        """The active rates of one country, oldest first: the candidates of address resolution."""

    async def update(
        self, merchant_id: str, environment: Environment, rate_id: str, changes: TaxRateChanges
    ) -> TaxRate | None: ...


class PlanRepository(Protocol):
    async def insert(self, plan: Plan, completion: IdempotencyCompletion | None) -> None:
        """Raises IdCollision when the id exists; writes the idempotent answer in the same transaction."""

    async def get(self, merchant_id: str, environment: Environment, plan_id: str) -> Plan | None: ...

    async def list_page(self, query: ListQuery) -> Page[Plan]:
        """Newest first, `limit` rows and whether more follow; `total_count` counts all of the owner's."""


class PriceRepository(Protocol):
    async def insert(self, price: Price, completion: IdempotencyCompletion | None) -> None:
        """Raises IdCollision when the id exists; writes the idempotent answer in the same transaction."""

    async def get(self, merchant_id: str, environment: Environment, price_id: str) -> Price | None: ...

    async def list_page(self, query: ListQuery, plan_id: str) -> Page[Price]:
        """One plan's prices, newest first; `total_count` counts all of that plan's."""

    async def set_active(
        self, merchant_id: str, environment: Environment, price_id: str, active: bool
    ) -> Price | None:
        """The one change a price allows."""
