"""A charge read by id takes a slot of the pool's point-read gate before a connection (scan_gate.py):
with every slot held it waits, without holding a connection, and goes as soon as one is free."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest

from core_server.bootstrap import Core
from core_server.db.scan_gate import POINT_READ_CONCURRENCY, point_read_gate_for
from tests.integration.core.factories import new_charge, new_owner

pytestmark = pytest.mark.integration


async def test_a_charge_read_waits_for_a_point_read_slot_and_goes_when_one_is_freed(core: Core) -> None:
    owner = await new_owner(core)
    charge = await new_charge(core, owner)
    gate = point_read_gate_for(core.pool)
    async with AsyncExitStack() as held:
        for _ in range(POINT_READ_CONCURRENCY):
            await held.enter_async_context(gate.slot())
        read = asyncio.create_task(core.charges.get(owner, charge.id))
        await asyncio.sleep(0.3)
        assert not read.done()  # every slot is taken: the read waits its turn
    found = await asyncio.wait_for(read, timeout=5.0)
    assert found.id == charge.id
