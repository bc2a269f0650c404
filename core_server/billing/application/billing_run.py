"""The billing run as sweepable work (kernel/application/timer_sweep.py): find the subscriptions with a
billing step due at their merchant's time, and have each one's steps applied through its actor.

DESIGN §9: due hourly, 100 subscriptions claimed at a time (the kernel's job claims, so two cores take
different batches; the sweep hands each batch back once run), batch after batch until none is due; a
sandbox clock advance runs it at once for that merchant.
"""

from __future__ import annotations

from collections.abc import Sequence

from core_server.billing.application.subscription_ports import SubscriptionRepository
from core_server.billing.application.subscriptions import SubscriptionService
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner

BILLING_BATCH = 100


class BillingRun:
    def __init__(self, subscriptions: SubscriptionRepository, service: SubscriptionService) -> None:
        self._subscriptions = subscriptions
        self._service = service

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        return await self._subscriptions.due_for_billing(claim, limit, owner)

    async def run(self, entity_id: str) -> bool:
        return await self._service.run_due(entity_id)
