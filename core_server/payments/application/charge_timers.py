"""The charge timers as sweepable work: checkout expiry with the 7-day hold, and due authorizations.

Both end in the charge's actor applying `Charge.expire_if_due` at its merchant's time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from core_server.actors import ActorRegistry
from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.payments.application.charge_commands import ExpireIfDue

FindDue = Callable[[JobClaim, int, Owner | None], Awaitable[Sequence[str]]]


class ChargeTimer:
    """DueWork (kernel/application/timer_sweep.py) over charges found by one of the repository's queries."""

    def __init__(self, find_due: FindDue, actors: ActorRegistry, *, ask_timeout: float) -> None:
        self._find_due = find_due
        self._actors = actors
        self._ask_timeout = ask_timeout

    async def find_due(self, claim: JobClaim, limit: int, owner: Owner | None) -> Sequence[str]:
        return await self._find_due(claim, limit, owner)

    async def run(self, entity_id: str) -> bool:
        return bool(await self._actors.ask(entity_id, ExpireIfDue(), timeout=self._ask_timeout))
