"""The TEST reset (DESIGN §10.5): delete every TEST object of a merchant, keep keys and endpoints, and set
the TEST clock back to real time. LIVE data is never touched (storage scopes every delete to TEST)."""

from __future__ import annotations

from collections.abc import Callable

from core_server.developer_tools.application.cli_sessions import require_test
from core_server.developer_tools.application.ports import TestDataStore
from core_server.developer_tools.domain.sandbox_reset import TestReset
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner


class TestResetService:
    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, store: TestDataStore, clock_reset: Callable[[], None]) -> None:
        self._store = store
        # Drops this core's cached clock offsets at once; other cores drop theirs on the NOTIFY.
        self._clock_reset = clock_reset

    async def reset(self, owner: Owner, claim: Claim[TestReset] | None) -> TestReset:
        require_test(owner, "Test data resets")
        # The answer is stored in the reset's own transaction: a retry with the same key replays it, and
        # the reset, which deletes the merchant's TEST idempotency records, keeps exactly this one.
        result = await self._store.reset(
            owner.merchant_id,
            claim.completion if claim is not None else None,
            claim.request.key if claim is not None else None,
        )
        self._clock_reset()
        return result
