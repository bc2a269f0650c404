"""PayoutService: the payout run of one merchant environment, and the merchant's reads of its payouts."""

from __future__ import annotations

import re

from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.outbox import render_events
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.ids import new_id
from core_server.kernel.domain.money import normalize_currency
from core_server.ledger.application.payout_ports import PayoutQuery, PayoutRepository
from core_server.ledger.application.payout_view import payout_view
from core_server.ledger.domain.payout import (
    Payout,
    PayoutStatus,
    arrive,
    midnight,
    parse_status,
    plan_payouts,
    schedule_day,
)

PAYOUT_ID_RE = re.compile(r"^po_[A-Za-z0-9]{24}$")


def new_payout_id() -> str:
    return new_id("po_", 24)


class PayoutService:
    def __init__(self, payouts: PayoutRepository, clocks: Clocks) -> None:
        self._payouts = payouts
        self._clocks = clocks

    async def run_due(self, owner: Owner) -> bool:
        """Arrivals first (a failure's returned funds are then in the balance), then the payouts of
        the current schedule day. True when anything was written."""
        settings = await self._payouts.settings(owner.merchant_id)
        if settings is None:
            return False
        now = await merchant_now(self._clocks, owner)
        changed = False
        for pending in await self._payouts.arrived(owner.merchant_id, owner.environment, now):
            arrived, event = arrive(pending, settings.account_number)
            events = render_events([event], payout_view(arrived), livemode=owner.environment.livemode)
            changed |= await self._payouts.arrive(arrived, owner.environment, events)
        day = schedule_day(settings.schedule, now.date())
        unsettled = await self._payouts.unsettled(owner.merchant_id, owner.environment, midnight(day))
        rates = await self._payouts.rates(owner.environment) if settings.settlement_currency else {}
        plans = plan_payouts(
            new_payout_id,
            owner.merchant_id,
            owner.environment.livemode,
            day,
            unsettled,
            settings.settlement_currency,
            rates,
        )
        for plan in plans:
            events = render_events(
                [plan.event], payout_view(plan.payout), livemode=owner.environment.livemode
            )
            # False: this day's payout exists already, or another run holds or settled its rows.
            changed |= await self._payouts.create(plan, owner.environment, events)
        return changed

    async def get(self, owner: Owner, payout_id: str) -> Payout:
        payout = None
        if PAYOUT_ID_RE.match(payout_id):
            payout = await self._payouts.get(owner.merchant_id, owner.environment, payout_id)
        if payout is None:
            raise NotFound(f"No such payout: '{payout_id[:100]}'", param="id")
        return payout

    async def list(
        self,
        owner: Owner,
        *,
        status: str | None = None,
        currency: str | None = None,
        limit: int = 0,
        starting_after: str | None = None,
    ) -> Page[Payout]:
        limit = page_limit(limit)
        parsed = parse_status(status)
        if status and parsed is None:
            allowed = ", ".join(s.value for s in PayoutStatus)
            raise ParameterInvalid(f"status must be one of {allowed}.", param="status")
        code = normalize_currency(currency) if currency else None

        async def exists(candidate: str) -> bool:
            return bool(PAYOUT_ID_RE.match(candidate)) and (
                await self._payouts.get(owner.merchant_id, owner.environment, candidate) is not None
            )

        await require_cursor(starting_after, "payout", exists)
        return await self._payouts.list(
            PayoutQuery(
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                limit=limit,
                status=parsed,
                currency=code,
                starting_after=starting_after,
            )
        )
