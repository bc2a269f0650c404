"""Two core processes' actors racing on one charge: totals exact, never exceeded."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from core_server.bootstrap import Core, build_core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.domain.errors import StateConflict
from core_server.payments.domain.charge import ChargeStatus
from tests.integration.core.factories import authorized_charge, new_owner

pytestmark = pytest.mark.integration


async def test_racing_refunds_and_captures_across_two_cores(core: Core, core_settings: Settings) -> None:
    second = await build_core(core_settings, SettableClock(datetime(2026, 11, 22, 12, 0, tzinfo=UTC)))
    try:
        owner = await new_owner(core)
        charge = await authorized_charge(core, owner, amount=5_000)
        cores = [core, second]

        async def capture(i: int) -> str:
            try:
                await cores[i % 2].charges.capture(owner, charge.id, 4_000)
                return "captured"
            except StateConflict as exc:
                return exc.code

        captures = await asyncio.gather(*(capture(i) for i in range(6)))
        assert captures.count("captured") == 1
        assert set(captures) - {"captured"} <= {"charge_already_captured"}

        async def refund(i: int) -> str:
            try:
                await cores[i % 2].charges.refund(owner, charge.id, 100, None)
                return "ok"
            except StateConflict as exc:
                return exc.code

        results = await asyncio.gather(*(refund(i) for i in range(50)))
        assert results.count("ok") == 40
        assert set(results) - {"ok"} <= {"refund_exceeds_charge", "charge_already_refunded"}
        final = await core.charges.get(owner, charge.id)
        assert final.amount_captured == 4_000
        assert final.amount_refunded == 4_000 == sum(r.amount for r in final.refunds)
        assert final.status is ChargeStatus.REFUNDED
    finally:
        await second.close()
