"""The expiration sweep under an injected clock: 24 h pending → expired, 7 days authorized → voided."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.payments.domain.charge import ChargeStatus
from tests.integration.core.factories import authorized_charge, new_charge, new_owner

pytestmark = pytest.mark.integration


async def test_sweep_expires_pending_and_voids_stale_authorizations(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    pending = await new_charge(core, owner)
    held = await authorized_charge(core, owner)

    clock.advance(timedelta(hours=23, minutes=59))
    assert await core.sweep("expiration").run_once() == 0

    clock.advance(timedelta(minutes=1))
    assert await core.sweep("expiration").run_once() == 1
    assert (await core.charges.get(owner, pending.id)).status is ChargeStatus.EXPIRED
    assert (await core.charges.get(owner, held.id)).status is ChargeStatus.AUTHORIZED

    clock.advance(timedelta(days=6))
    assert await core.sweep("expiration").run_once() == 1
    assert (await core.charges.get(owner, held.id)).status is ChargeStatus.VOIDED
    assert await core.sweep("expiration").run_once() == 0


async def test_two_cores_sweeping_at_once_change_each_charge_once(
    core: Core, core_settings: object, clock: SettableClock
) -> None:
    from core_server.bootstrap import build_core

    second = await build_core(core_settings, clock)  # type: ignore[arg-type]
    try:
        owner = await new_owner(core)
        ids = [(await new_charge(core, owner)).id for _ in range(5)]
        clock.advance(timedelta(hours=25))
        import asyncio

        changed = await asyncio.gather(
            core.sweep("expiration").run_once(), second.sweep("expiration").run_once()
        )
        assert sum(changed) == 5
        for charge_id in ids:
            assert (await core.charges.get(owner, charge_id)).status is ChargeStatus.EXPIRED
    finally:
        await second.close()


async def test_pending_paypal_is_authorized_by_the_sweep_with_an_event(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    charge = await new_charge(core, owner)
    result = await core.checkout.complete(charge.id, "paypal", None, "pending@sandbox.paypal.test")
    assert result.success and result.status == "pending"
    assert (await core.charges.get(owner, charge.id)).status is ChargeStatus.PENDING
    assert await core.sweep("async-authorizations").run_once() == 0
    clock.advance(timedelta(seconds=3))
    assert await core.sweep("async-authorizations").run_once() == 1
    assert (await core.charges.get(owner, charge.id)).status is ChargeStatus.AUTHORIZED
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute("SELECT type FROM events WHERE object_id = %s ORDER BY seq", (charge.id,))
        ).fetchall()
    assert [r["type"] for r in rows] == ["charge.created", "charge.completed"]


async def test_dispute_writes_its_event_with_the_state(core: Core) -> None:
    from tests.integration.core.factories import captured_charge

    owner = await new_owner(core)
    charge = await captured_charge(core, owner)
    await core.charges.open_dispute(owner, charge.id)
    async with core.pool.connection() as conn:
        rows = await (
            await conn.execute(
                "SELECT type, payload FROM events WHERE object_id = %s ORDER BY seq", (charge.id,)
            )
        ).fetchall()
    assert [r["type"] for r in rows] == ["charge.created", "charge.completed", "charge.disputed"]
    disputed = rows[-1]["payload"]["data"]["object"]
    assert disputed["status"] == "disputed" and disputed["dispute"]["fee"] == 1500


async def test_daily_work_wakes_at_the_next_midnight_of_any_clock(core: Core, clock: SettableClock) -> None:
    """DESIGN §10.4: notices and payouts fall due at 00:00 of each merchant's clock, so the sweeps wake
    then — a sandbox clock 5 h ahead reaches midnight at 19:00 real time."""
    from datetime import UTC, datetime

    from core_server.kernel.storage.clock_offsets import PgClockOffsets

    offsets = PgClockOffsets(core.pool)
    owner = await new_owner(core)
    real_now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert await offsets.next_midnight(real_now) <= datetime(2026, 11, 26, tzinfo=UTC)
    await offsets.set(owner.merchant_id, timedelta(hours=5))
    wake = await offsets.next_midnight(real_now)
    assert real_now < wake <= datetime(2026, 11, 25, 19, 0, tzinfo=UTC)
