"""A login flood against one core cannot starve its payment calls: password hashing runs in the bounded
KDF pool (LOGIN_KDF_WORKERS threads, LOGIN_KDF_QUEUE waiting); the rest of the flood is refused at once."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest

from core_server.bootstrap import Core
from core_server.kernel.domain.errors import Unauthenticated
from core_server.security.kdf_pool import KdfPoolSaturated
from tests.integration.core.factories import new_charge, new_owner

pytestmark = pytest.mark.integration

FLOOD = 40


async def test_a_charge_is_created_promptly_while_a_login_flood_hashes(core: Core) -> None:
    owner = await new_owner(core)
    pool = core.kdf_pool
    assert pool is not None
    bound = core.settings.login_kdf_workers + core.settings.login_kdf_queue
    # Distinct e-mails, so the per-account throttle lets every one of them through to the KDF.
    flood = [
        asyncio.create_task(core.merchants.issue_token(f"flood{uuid.uuid4().hex}@example.com", "password123"))
        for _ in range(FLOOD)
    ]
    await asyncio.sleep(0)  # let the flood reach the pool first
    started = time.perf_counter()
    charge = await new_charge(core, owner)
    elapsed = time.perf_counter() - started
    outcomes = await asyncio.gather(*flood, return_exceptions=True)
    assert charge.id.startswith("ch_")
    # Generous (the machine is shared): a create takes milliseconds here, hashing the 40 logins in line on
    # the event loop would hold it for two seconds or more.
    assert elapsed < 2.0, f"create took {elapsed:.2f}s under a login flood"
    refused = [o for o in outcomes if isinstance(o, KdfPoolSaturated)]
    checked = [o for o in outcomes if isinstance(o, Unauthenticated)]
    assert len(refused) + len(checked) == FLOOD, outcomes
    assert pool.peak <= bound
    assert len(refused) >= FLOOD - bound  # refused at once, not queued


async def test_a_login_shed_by_the_full_pool_is_not_counted_by_the_throttle(core: Core) -> None:
    pool = core.kdf_pool
    assert pool is not None
    email = f"shed{uuid.uuid4().hex}@example.com"
    release = threading.Event()
    blockers = [
        asyncio.create_task(pool.run(release.wait, 10)) for _ in range(pool.workers + pool.max_waiting)
    ]
    await asyncio.sleep(0.05)
    try:
        for _ in range(7):
            with pytest.raises(KdfPoolSaturated):
                await core.merchants.issue_token(email, "password123")
    finally:
        release.set()
        await asyncio.gather(*blockers)
    # Shed before any round trip: the seven attempts were never counted, all five free failures remain.
    for _ in range(5):
        with pytest.raises(Unauthenticated):
            await core.merchants.issue_token(email, "password123")


async def test_two_flooding_addresses_hold_only_their_share_and_a_third_still_signs_in(core: Core) -> None:
    """DESIGN §10.9: two addresses at the anonymous rate used to fill the whole pool, so every other
    login and sign-up got 503. Each address now holds at most its share (LOGIN_KDF_PER_ADDRESS)."""
    pool = core.kdf_pool
    assert pool is not None
    email = f"third{uuid.uuid4().hex}@example.com"
    await core.merchants.create(email, "password123", "Shop", "192.0.2.30")
    release = threading.Event()
    held: list[asyncio.Task[bool]] = []
    refused = 0
    for flooder in ("192.0.2.10", "192.0.2.20"):
        for _ in range(pool.workers + pool.max_waiting):
            try:
                pool.check_room(flooder)
            except KdfPoolSaturated:
                refused += 1
                continue
            held.append(asyncio.create_task(pool.run(release.wait, 10, owner=flooder)))
            await asyncio.sleep(0)  # admitted before the next one asks
    try:
        assert len(held) == 2 * pool.per_owner < pool.workers + pool.max_waiting
        assert refused == 2 * (pool.workers + pool.max_waiting - pool.per_owner)
        with pytest.raises(KdfPoolSaturated):  # a flooder's next login is shed at once...
            await core.merchants.issue_token(email, "password123", "192.0.2.10")
        # ...while another address's login is admitted and waits its turn behind the held workers.
        login = asyncio.create_task(core.merchants.issue_token(email, "password123", "192.0.2.30"))
        await asyncio.sleep(0.2)
        assert not login.done()
    finally:
        release.set()
        await asyncio.gather(*held)
    token, _ = await login
    assert token
