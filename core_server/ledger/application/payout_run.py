"""The payout run as sweepable work (kernel/application/timer_sweep.py): find the merchant environments
with a payout or an arrival due at their merchant's time, and run each one's payouts.

Entity ids are `merchant_id/environment`. The periodic run claims its batch (payout_claims), so every
core runs at once, each its own merchants; after a sandbox clock advance the merchant's own environment
is run at once, claimed or not (its statements are exactly-once on their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.environment import Environment
from core_server.ledger.application.payout_ports import PayoutRepository
from core_server.ledger.application.payouts import PayoutService


def entity_id(owner: Owner) -> str:
    return f"{owner.merchant_id}/{owner.environment.value}"


def owner_of(entity: str) -> Owner:
    merchant_id, _, environment = entity.rpartition("/")
    return Owner(merchant_id, Environment(environment))


class PayoutRun:
    def __init__(self, payouts: PayoutRepository, service: PayoutService) -> None:
        self._payouts = payouts
        self._service = service

    async def find_due(self, real_now: datetime, limit: int, owner: Owner | None) -> Sequence[str]:
        if owner is not None:
            return [entity_id(owner)]
        return [entity_id(claimed) for claimed in await self._payouts.claim_due(real_now, limit)]

    async def run(self, entity: str) -> bool:
        owner = owner_of(entity)
        try:
            return await self._service.run_due(owner)
        finally:
            # Also after a failure: the next pass retries it rather than waiting out the claim.
            await self._payouts.release_claim(owner)
