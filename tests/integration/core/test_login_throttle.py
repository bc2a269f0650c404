"""The per-account login throttle against real Redis and PostgreSQL, through the core's MerchantService
(docs/security.md): five free failures, then 1 s, 2 s, ...; a success resets; the count is shared by every
core; a throttled attempt is refused before its password is checked; unknown e-mails are throttled alike."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import redis.asyncio as aioredis
from connect import errors

from core_server.bootstrap import Core
from core_server.config import Settings
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.domain.errors import RateLimited, Unauthenticated
from core_server.locking.errors import LockServiceUnavailable
from core_server.merchants.application.merchants import MerchantService
from core_server.merchants.storage.login_attempts import RedisLoginAttempts
from core_server.merchants.storage.merchant_repository import PgMerchantRepository
from core_server.sealing import payout_accounts
from core_server.security.tokens import JwtIssuer
from tests.integration.core.conftest import make_core

pytestmark = pytest.mark.integration

PASSWORD = "the right password"
WRONG = "a wrong password"


def _email() -> str:
    return f"login{uuid.uuid4().hex[:10]}@example.com"


async def _fail(core: Core, email: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(Unauthenticated):
            await core.merchants.issue_token(email, WRONG)


async def _throttled(core: Core, email: str, password: str) -> RateLimited:
    with pytest.raises(RateLimited) as caught:
        await core.merchants.issue_token(email, password)
    assert caught.value.code == errors.LOGIN_THROTTLED.code
    return caught.value


@pytest.fixture
async def second_core(core_settings: Settings, clock: SettableClock, core: Core) -> AsyncIterator[Core]:
    """Another core on the same database and Redis namespace, as a second process would be."""
    built = await make_core(core_settings, clock)
    try:
        yield built
    finally:
        await built.close()


async def test_the_sixth_attempt_waits_and_even_the_right_password_is_not_checked(
    core: Core, clock: SettableClock
) -> None:
    email = _email()
    await core.merchants.create(email, PASSWORD, "Shop")
    await _fail(core, email, 5)
    refused = await _throttled(core, email, PASSWORD)
    assert refused.retry_after == timedelta(seconds=1)
    clock.advance(timedelta(milliseconds=999))
    await _throttled(core, email, PASSWORD)
    clock.advance(timedelta(milliseconds=1))
    await _fail(core, email, 1)  # the sixth goes through after its second, and fails
    assert (await _throttled(core, email, WRONG)).retry_after == timedelta(seconds=2)
    clock.advance(timedelta(seconds=1))
    assert (await _throttled(core, email, PASSWORD)).retry_after == timedelta(seconds=1)


async def test_a_success_after_the_back_off_resets_the_count(core: Core, clock: SettableClock) -> None:
    email = _email()
    await core.merchants.create(email, PASSWORD, "Shop")
    await _fail(core, email, 5)
    await _throttled(core, email, PASSWORD)
    clock.advance(timedelta(seconds=1))
    token, _ = await core.merchants.issue_token(email.upper(), PASSWORD)
    assert token
    await _fail(core, email, 5)  # five free failures again
    await _throttled(core, email, WRONG)


async def test_an_unknown_email_is_throttled_exactly_like_a_known_one(core: Core) -> None:
    known, unknown = _email(), _email()
    await core.merchants.create(known, PASSWORD, "Shop")
    await _fail(core, known, 5)
    await _fail(core, unknown, 5)
    from_known = await _throttled(core, known, WRONG)
    from_unknown = await _throttled(core, unknown, WRONG)
    assert (from_unknown.message, from_unknown.retry_after) == (from_known.message, from_known.retry_after)


async def test_two_cores_count_the_same_failures(core: Core, second_core: Core, clock: SettableClock) -> None:
    email = _email()
    await core.merchants.create(email, PASSWORD, "Shop")
    await _fail(core, email, 3)
    await _fail(second_core, email.upper(), 2)  # another core, another spelling of the same e-mail
    await _throttled(core, email, PASSWORD)
    await _throttled(second_core, email, PASSWORD)
    other = _email()
    await core.merchants.create(other, PASSWORD, "Shop")
    assert (await second_core.merchants.issue_token(other, PASSWORD))[0]  # other accounts are unaffected


async def test_parallel_guesses_get_no_more_than_the_free_attempts(core: Core, second_core: Core) -> None:
    email = _email()
    await core.merchants.create(email, PASSWORD, "Shop")
    attempts = [(core if i % 2 else second_core).merchants.issue_token(email, WRONG) for i in range(20)]
    outcomes = await asyncio.gather(*attempts, return_exceptions=True)
    checked = [o for o in outcomes if isinstance(o, Unauthenticated)]
    throttled = [o for o in outcomes if isinstance(o, RateLimited)]
    assert len(checked) + len(throttled) == 20, outcomes
    assert 1 <= len(checked) <= 5


async def test_without_redis_logins_fail_closed(core: Core, clock: SettableClock) -> None:
    """Redis unreachable: the throttle cannot count, so no password is checked (503), never a free pass."""
    email = _email()
    await core.merchants.create(email, PASSWORD, "Shop")
    dead = aioredis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    assert core.kdf_pool is not None
    merchants = MerchantService(
        PgMerchantRepository(core.pool, payout_accounts(core.settings)),
        JwtIssuer("integration-test-signing-key-0123456789", clock),
        clock,
        attempts=RedisLoginAttempts(dead, namespace="unreachable"),
        kdf=core.kdf_pool,
    )
    try:
        with pytest.raises(LockServiceUnavailable):
            await merchants.issue_token(email, PASSWORD)
    finally:
        await dead.aclose()
