"""DESIGN §10.9: the login throttle counts per (account, client address), and an address that signed in
to the account within 30 days is never slowed by other addresses' failures; guessing from unknown
addresses is still slowed for the account as a whole. Real Redis and PostgreSQL, through the core's
MerchantService."""

from __future__ import annotations

import uuid

import pytest
from connect import errors

from core_server.bootstrap import Core
from core_server.kernel.domain.errors import RateLimited, Unauthenticated

pytestmark = pytest.mark.integration

PASSWORD = "the right password"
WRONG = "a wrong password"
OWNER_AT = "203.0.113.10"
ATTACKER_AT = "198.51.100.66"


async def _fail(core: Core, email: str, address: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(Unauthenticated):
            await core.merchants.issue_token(email, WRONG, address)


async def _throttled(core: Core, email: str, password: str, address: str) -> None:
    with pytest.raises(RateLimited) as caught:
        await core.merchants.issue_token(email, password, address)
    assert caught.value.code == errors.LOGIN_THROTTLED.code


async def test_guessing_from_elsewhere_never_slows_the_owners_known_address(core: Core) -> None:
    email = f"owner{uuid.uuid4().hex[:10]}@example.com"
    await core.merchants.create(email, PASSWORD, "Shop", OWNER_AT)
    assert (await core.merchants.issue_token(email, PASSWORD, OWNER_AT))[0]  # the owner's address is known
    await _fail(core, email, ATTACKER_AT, 5)
    for _ in range(3):
        await _throttled(core, email, PASSWORD, ATTACKER_AT)  # the guesser waits, right password or not
    assert (await core.merchants.issue_token(email.upper(), PASSWORD, OWNER_AT))[0]
    # Another unknown address shares the account's record of unknown addresses: no fresh free guesses.
    await _throttled(core, email, WRONG, "192.0.2.77")
    # The owner's own mistakes still count for its address alone.
    await _fail(core, email, OWNER_AT, 5)
    await _throttled(core, email, PASSWORD, OWNER_AT)


async def test_an_ipv6_guesser_gains_nothing_by_hopping_within_its_64(core: Core) -> None:
    email = f"owner{uuid.uuid4().hex[:10]}@example.com"
    await core.merchants.create(email, PASSWORD, "Shop", OWNER_AT)
    assert (await core.merchants.issue_token(email, PASSWORD, OWNER_AT))[0]
    for n in range(5):
        await _fail(core, email, f"2001:db8:7:7::{n + 1:x}", 1)
    # The account's record of unknown addresses alone would allow it as well; so does the owner's pair.
    await _throttled(core, email, WRONG, "2001:db8:7:7::ffff")
    assert (await core.merchants.issue_token(email, PASSWORD, OWNER_AT))[0]
