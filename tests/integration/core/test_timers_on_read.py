"""Timers seen on read, and a sweep that drains a backlog, under the injected clock.

A retrieve or list never shows `pending` or `authorized` past its deadline, even before any sweep ran;
the read writes nothing (the row and the events stay as they were until the sweep persists the lapse).
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.timer_sweep import BATCH
from core_server.payments.domain.charge import ChargeStatus
from tests.integration.core.factories import authorized_charge, new_charge, new_owner

pytestmark = pytest.mark.integration


async def _stored(core: Core, charge_id: str) -> tuple[str, list[str]]:
    """The row's own status and its events, as PostgreSQL holds them."""
    async with core.pool.connection() as conn:
        row = await (await conn.execute("SELECT status FROM charges WHERE id = %s", (charge_id,))).fetchone()
        events = await (
            await conn.execute("SELECT type FROM events WHERE object_id = %s ORDER BY seq", (charge_id,))
        ).fetchall()
    assert row is not None
    return row["status"], [e["type"] for e in events]


async def _listed(core: Core, owner: Owner, status: ChargeStatus | None = None) -> dict[str, ChargeStatus]:
    page = await core.charges.list(
        owner, limit=100, status=status, created_after=None, created_before=None, starting_after=None
    )
    return {charge.id: charge.status for charge in page.items}


async def test_a_pending_charge_past_24_hours_reads_expired_before_any_sweep(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    charge = await new_charge(core, owner)

    clock.advance(timedelta(hours=24) - timedelta(seconds=1))
    assert (await core.charges.get(owner, charge.id)).status is ChargeStatus.PENDING

    clock.advance(timedelta(seconds=2))  # 24 h + 1 s
    assert (await core.charges.get(owner, charge.id)).status is ChargeStatus.EXPIRED
    assert (await _listed(core, owner))[charge.id] is ChargeStatus.EXPIRED
    assert charge.id in await _listed(core, owner, ChargeStatus.EXPIRED)
    assert charge.id not in await _listed(core, owner, ChargeStatus.PENDING)
    # The read wrote nothing: the sweep persists it.
    assert await _stored(core, charge.id) == ("pending", ["charge.created"])

    assert await core.sweep("expiration").run_once() == 1
    assert await _stored(core, charge.id) == ("expired", ["charge.created"])


async def test_an_authorized_charge_past_its_7_day_hold_reads_voided_before_any_sweep(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)

    clock.advance(timedelta(days=7, seconds=1))
    seen = await core.charges.get(owner, charge.id)
    assert seen.status is ChargeStatus.VOIDED
    assert seen.authorized_at is not None
    assert seen.voided_at == seen.authorized_at + timedelta(days=7)  # when the hold lapsed, on every read
    clock.advance(timedelta(hours=1))
    assert (await core.charges.get(owner, charge.id)).voided_at == seen.voided_at
    assert (await _listed(core, owner))[charge.id] is ChargeStatus.VOIDED
    assert charge.id in await _listed(core, owner, ChargeStatus.VOIDED)
    assert charge.id not in await _listed(core, owner, ChargeStatus.AUTHORIZED)
    assert await _stored(core, charge.id) == ("authorized", ["charge.created", "charge.completed"])
    assert await core.sweep("expiration").run_once() == 1
    assert (await core.charges.get(owner, charge.id)).voided_at == seen.voided_at  # the sweep stores the same


async def test_a_due_paypal_authorization_reads_authorized_and_its_event_waits_for_the_write(
    core: Core, clock: SettableClock
) -> None:
    owner = await new_owner(core)
    charge = await new_charge(core, owner)
    await core.checkout.complete(charge.id, "paypal", None, "pending@sandbox.paypal.test")
    clock.advance(timedelta(seconds=3))

    assert (await core.charges.get(owner, charge.id)).status is ChargeStatus.AUTHORIZED
    assert await _stored(core, charge.id) == ("pending", ["charge.created"])
    assert await core.sweep("async-authorizations").run_once() == 1
    assert await _stored(core, charge.id) == ("authorized", ["charge.created", "charge.completed"])


async def test_one_sweep_pass_drains_a_backlog_larger_than_a_batch(core: Core, clock: SettableClock) -> None:
    owner = await new_owner(core)
    count = 1_200
    assert count > 2 * BATCH
    for start in range(0, count, 50):
        await asyncio.gather(*(new_charge(core, owner) for _ in range(start, min(start + 50, count))))
    clock.advance(timedelta(hours=24, seconds=1))

    started = time.perf_counter()
    assert await core.sweep("expiration").run_once() == count
    print(f"drained {count} expiries in {time.perf_counter() - started:.2f} s")
    async with core.pool.connection() as conn:
        left = await (
            await conn.execute(
                "SELECT count(*) AS n FROM charges WHERE merchant_id = %s AND status = 'pending'",
                (owner.merchant_id,),
            )
        ).fetchone()
    assert left is not None and left["n"] == 0
