"""The payouts' storage port."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.ledger.domain.payout import Payout, PayoutPlan, PayoutStatus, Settleable


@dataclass(frozen=True, slots=True)
class PayoutSettings:
    """What the merchant's profile says about its payouts."""

    schedule: str
    account_number: str
    settlement_currency: str = ""


@dataclass(frozen=True, slots=True)
class PayoutQuery:
    merchant_id: str
    environment: Environment
    limit: int
    status: PayoutStatus | None = None
    currency: str | None = None
    starting_after: str | None = None


class PayoutRepository(Protocol):
    async def claim_due(self, claim: JobClaim, limit: int) -> Sequence[str]:
        """Merchant environments (`merchant_id/environment`) with a payout or an arrival due at their
        time for `claim.now`, not held by another core's run, claimed with `claim` (the kernel's job
        claims; the sweep hands them back)."""

    async def settings(self, merchant_id: str) -> PayoutSettings | None: ...

    async def rates(self, environment: Environment) -> dict[str, Decimal]:
        """The mid-market rates of the environment, units per US dollar (none: nothing converts)."""

    async def unsettled(
        self, merchant_id: str, environment: Environment, cutoff: datetime
    ) -> dict[str, list[Settleable]]:
        """Per currency, the rows no payout settled yet, available at `cutoff`."""

    async def create(self, plan: PayoutPlan, environment: Environment, events: Sequence[OutboxEvent]) -> bool:
        """The payout, its settled rows, its `payout` row and its events in one statement; False when
        it was made already or its rows changed since they were read (nothing written)."""

    async def arrived(self, merchant_id: str, environment: Environment, now: datetime) -> Sequence[Payout]:
        """Pending payouts whose `arrival_date` is at or before `now`."""

    async def arrive(self, payout: Payout, environment: Environment, events: Sequence[OutboxEvent]) -> bool:
        """The arrival (and a failure's `payout_failure` row) if the payout is still pending."""

    async def get(self, merchant_id: str, environment: Environment, payout_id: str) -> Payout | None: ...

    async def list(self, query: PayoutQuery) -> Page[Payout]:
        """Newest first; `total_count` counts every payout matching the filters."""
