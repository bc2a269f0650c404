"""The payout run as sweepable work (kernel/application/timer_sweep.py): find the merchant environments
with a payout or an arrival due at their merchant's time, and run each one's payouts.

Entity ids are `merchant_id/environment`. The periodic run claims its batch (the kernel's job claims),
so every core runs at once, each its own merchants; after a sandbox clock advance the merchant's own
environment is run at once, claimed or not (its statements are exactly-once on their own).
"""

from __future__ import annotations

from collections.abc import Sequence

from core_server.kernel.application.job_claims import JobClaim
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

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        if owner is not None:
            return [entity_id(owner)]
        return await self._payouts.claim_due(claim, limit)

    async def run(self, entity: str) -> bool:
        return await self._service.run_due(owner_of(entity))
