"""Plan and price use cases: create and read plans; create, read, list and (de)activate their prices."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from core_server.billing.application.catalog_ports import ListQuery, PlanRepository, PriceRepository
from core_server.billing.domain.catalog import (
    Plan,
    Price,
    validate_plan_description,
    validate_plan_name,
    validate_price_terms,
)
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.kernel.domain.input_rules import validate_metadata

PLAN_ID_RE = re.compile(r"^plan_[A-Za-z0-9]{24}$")
PRICE_ID_RE = re.compile(r"^price_[A-Za-z0-9]{24}$")


def plan_not_found(plan_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' plans."""
    return NotFound(f"No such plan: '{plan_id[:100]}'", param="id")


def price_not_found(price_id: str) -> NotFound:
    return NotFound(f"No such price: '{price_id[:100]}'", param="id")


def bad_cursor(noun: str, starting_after: str) -> ParameterInvalid:
    return ParameterInvalid(
        f"starting_after names no {noun} of yours: '{starting_after[:100]}'.", param="starting_after"
    )


class PlanService:
    def __init__(self, plans: PlanRepository, prices: PriceRepository, clocks: Clocks) -> None:
        self._plans = plans
        self._prices = prices
        self._clocks = clocks

    async def _now_of(self, owner: Owner) -> datetime:
        return await merchant_now(self._clocks, owner, whole_seconds=True)

    async def create_plan(
        self,
        owner: Owner,
        *,
        name: str,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
        claim: Claim[Plan] | None = None,
    ) -> Plan:
        checked_name = validate_plan_name(name)
        checked_description = validate_plan_description(description)
        checked_metadata = validate_metadata(metadata or {})
        now = await self._now_of(owner)
        for plan_id in id_candidates("plan_", 24):
            plan = Plan(
                id=plan_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                name=checked_name,
                description=checked_description,
                active=True,
                created=now,
                metadata=checked_metadata,
            )
            try:
                await self._plans.insert(plan, claim.completion(plan) if claim is not None else None)
            except IdCollision:
                continue
            return plan
        raise IdSpaceExhausted("ten plan id collisions in a row")

    async def get_plan(self, owner: Owner, plan_id: str) -> Plan:
        found = None
        if PLAN_ID_RE.match(plan_id):
            found = await self._plans.get(owner.merchant_id, owner.environment, plan_id)
        if found is None:
            raise plan_not_found(plan_id)
        return found

    async def list_plans(self, owner: Owner, *, limit: int, starting_after: str | None) -> Page[Plan]:
        checked = page_limit(limit)
        if starting_after is not None and not (
            PLAN_ID_RE.match(starting_after)
            and await self._plans.get(owner.merchant_id, owner.environment, starting_after) is not None
        ):
            raise bad_cursor("plan", starting_after)
        query = ListQuery(owner.merchant_id, owner.environment, checked, starting_after)
        return await self._plans.list_page(query)

    async def create_price(
        self,
        owner: Owner,
        plan_id: str,
        *,
        amount_cents: int,
        currency: str,
        interval: str,
        interval_count: int,
        trial_period_days: int | None = None,
        metadata: Mapping[str, str] | None = None,
        claim: Claim[Price] | None = None,
    ) -> Price:
        plan = await self.get_plan(owner, plan_id)
        terms = validate_price_terms(
            amount_cents=amount_cents,
            currency=currency,
            interval=interval,
            interval_count=interval_count,
            trial_period_days=trial_period_days,
        )
        checked_metadata = validate_metadata(metadata or {})
        now = await self._now_of(owner)
        for price_id in id_candidates("price_", 24):
            price = Price(
                id=price_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                plan_id=plan.id,
                terms=terms,
                active=True,
                created=now,
                metadata=checked_metadata,
            )
            try:
                await self._prices.insert(price, claim.completion(price) if claim is not None else None)
            except IdCollision:
                continue
            return price
        raise IdSpaceExhausted("ten price id collisions in a row")

    async def get_price(self, owner: Owner, price_id: str) -> Price:
        found = None
        if PRICE_ID_RE.match(price_id):
            found = await self._prices.get(owner.merchant_id, owner.environment, price_id)
        if found is None:
            raise price_not_found(price_id)
        return found

    async def list_prices(
        self, owner: Owner, plan_id: str, *, limit: int, starting_after: str | None
    ) -> Page[Price]:
        plan = await self.get_plan(owner, plan_id)
        checked = page_limit(limit)
        if starting_after is not None:
            cursor = (
                await self._prices.get(owner.merchant_id, owner.environment, starting_after)
                if PRICE_ID_RE.match(starting_after)
                else None
            )
            if cursor is None or cursor.plan_id != plan.id:
                raise bad_cursor("price of this plan", starting_after)
        query = ListQuery(owner.merchant_id, owner.environment, checked, starting_after)
        return await self._prices.list_page(query, plan.id)

    async def set_price_active(self, owner: Owner, price_id: str, active: bool | None) -> Price:
        """The one change a price allows; an empty change answers the price as it is."""
        price = await self.get_price(owner, price_id)
        if active is None:
            return price
        updated = await self._prices.set_active(owner.merchant_id, owner.environment, price_id, active)
        if updated is None:
            raise price_not_found(price_id)
        return updated
