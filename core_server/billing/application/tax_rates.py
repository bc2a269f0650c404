"""Tax rate use cases: create, read, list, change (display name, active) and resolve for an address."""

from __future__ import annotations

import re
from collections.abc import Mapping

from core_server.billing.application.catalog_ports import ListQuery, TaxRateChanges, TaxRateRepository
from core_server.billing.domain.tax import (
    TaxRate,
    normalize_country,
    normalize_state,
    parse_percentage,
    resolve_rate,
    validate_display_name,
    validate_jurisdiction,
)
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.kernel.domain.input_rules import validate_metadata

TAX_RATE_ID_RE = re.compile(r"^txr_[A-Za-z0-9]{24}$")
TERMS_REMEMBERED = 10_000
"""Explicit rates each core keeps for resolution (`resolve`): a billing run reads one per invoice."""


def tax_rate_not_found(rate_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' rates."""
    return NotFound(f"No such tax rate: '{rate_id[:100]}'", param="id")


class TaxRateService:
    def __init__(self, rates: TaxRateRepository, clocks: Clocks) -> None:
        self._rates = rates
        self._clocks = clocks
        self._terms: dict[tuple[str, str, str], TaxRate] = {}

    async def create(
        self,
        owner: Owner,
        *,
        percentage: str,
        display_name: str,
        inclusive: bool,
        jurisdiction: str | None = None,
        country: str | None = None,
        state: str | None = None,
        metadata: Mapping[str, str] | None = None,
        claim: Claim[TaxRate] | None = None,
    ) -> TaxRate:
        exact = parse_percentage(percentage)
        name = validate_display_name(display_name)
        place = validate_jurisdiction(jurisdiction)
        country_code = normalize_country(country)
        region = normalize_state(state)
        if region is not None and country_code is None:
            raise ParameterInvalid("A state needs its country.", param="country")
        checked_metadata = validate_metadata(metadata or {})
        now = await merchant_now(self._clocks, owner, whole_seconds=True)
        for rate_id in id_candidates("txr_", 24):
            rate = TaxRate(
                id=rate_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                percentage=exact,
                display_name=name,
                jurisdiction=place,
                inclusive=inclusive,
                country=country_code,
                state=region,
                active=True,
                created=now,
                metadata=checked_metadata,
            )
            try:
                await self._rates.insert(rate, claim.completion(rate) if claim is not None else None)
            except IdCollision:
                continue
            return rate
        raise IdSpaceExhausted("ten tax rate id collisions in a row")

    async def get(self, owner: Owner, rate_id: str) -> TaxRate:
        found = None
        if TAX_RATE_ID_RE.match(rate_id):
            found = await self._rates.get(owner.merchant_id, owner.environment, rate_id)
        if found is None:
            raise tax_rate_not_found(rate_id)
        return found

    async def list(self, owner: Owner, *, limit: int, starting_after: str | None) -> Page[TaxRate]:
        checked = page_limit(limit)
        if starting_after is not None and not (
            TAX_RATE_ID_RE.match(starting_after)
            and await self._rates.get(owner.merchant_id, owner.environment, starting_after) is not None
        ):
            raise ParameterInvalid(
                f"starting_after names no tax rate of yours: '{starting_after[:100]}'.",
                param="starting_after",
            )
        query = ListQuery(owner.merchant_id, owner.environment, checked, starting_after)
        return await self._rates.list_page(query)

    async def update(
        self, owner: Owner, rate_id: str, *, display_name: str | None = None, active: bool | None = None
    ) -> TaxRate:
        await self.get(owner, rate_id)
        changes = TaxRateChanges(
            display_name=validate_display_name(display_name) if display_name is not None else None,
            active=active,
        )
        updated = await self._rates.update(owner.merchant_id, owner.environment, rate_id, changes)
        if updated is None:
            raise tax_rate_not_found(rate_id)
        return updated

    async def resolve(
        self, owner: Owner, tax_rate_id: str | None, country: str | None, state: str | None
    ) -> TaxRate | None:
        """DESIGN §9 resolution for a subscription of this owner (the subscription's rate must exist).
        The rate returned is for computing tax: only its id, percentage and `inclusive` are to be read."""
        explicit = await self._explicit_terms(owner, tax_rate_id) if tax_rate_id else None
        if explicit is not None or not country:
            return explicit
        candidates = await self._rates.active_for_country(
            owner.merchant_id, owner.environment, country.strip().upper()
        )
        return resolve_rate(None, candidates, country, state)

    async def _explicit_terms(self, owner: Owner, rate_id: str) -> TaxRate:
        """The rate a subscription names, read once per core: a rate's id, percentage and `inclusive` never
        change after its create (an update changes only its display name and whether it is active, which
        no invoice reads, and an explicit rate applies whether active or not), so what was read stays
        right for computing tax. Read for the owner's tenant like `get`; a TEST reset that deletes a rate
        deletes the subscriptions naming it too, and ids are never reused."""
        key = (owner.merchant_id, owner.environment.value, rate_id)
        rate = self._terms.get(key)
        if rate is None:
            rate = await self.get(owner, rate_id)
            if len(self._terms) >= TERMS_REMEMBERED:
                self._terms.pop(next(iter(self._terms)))  # the oldest read: a bound, not a policy
            self._terms[key] = rate
        return rate
