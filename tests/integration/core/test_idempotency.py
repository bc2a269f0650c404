"""Idempotency against real PostgreSQL: replay, mismatch, concurrency, crash takeover, 24 h expiry."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from core_server.bootstrap import Core
from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import ClaimOutcome, IdempotencyRequest
from core_server.kernel.domain.errors import IdempotencyConflict, ParameterInvalid, StateConflict
from core_server.kernel.domain.replays import Replay
from core_server.kernel.storage.idempotency_store import PgIdempotencyStore
from core_server.payments.domain.charge import Charge
from tests.integration.core.factories import authorized_charge, new_owner

pytestmark = pytest.mark.integration


def render(charge: Charge) -> bytes:
    return f"{charge.id}:{charge.status.value}:{charge.amount_captured}".encode()


async def capture(
    core: Core, owner: Owner, charge_id: str, amount: int | None, request: IdempotencyRequest
) -> Charge | Replay:
    """As CaptureCharge runs it (idempotent_rpc): claimed by the runner, completed by the charge's turn."""
    return await core.runner.run(
        request, render, lambda claim: core.charges.capture(owner, charge_id, amount, claim)
    )


async def test_retried_capture_replays_the_first_answer(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    request = IdempotencyRequest(f"{owner.merchant_id}:test", "cap-1", "fp-a")
    first = await capture(core, owner, charge.id, 1000, request)
    again = await capture(core, owner, charge.id, 1000, request)
    assert isinstance(first, Charge) and isinstance(again, Replay)
    assert again.response == render(first)


async def test_same_key_other_body_is_a_conflict(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    await capture(core, owner, charge.id, 1000, IdempotencyRequest("s", "k", "fp-a"))
    with pytest.raises(IdempotencyConflict):
        await capture(core, owner, charge.id, 999, IdempotencyRequest("s", "k", "fp-b"))


async def test_state_errors_are_stored_and_replayed(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    await core.charges.capture(owner, charge.id, None)
    request = IdempotencyRequest("s", "again", "fp")
    for _ in range(2):
        with pytest.raises(Exception) as info:
            await capture(core, owner, charge.id, None, request)
        assert getattr(info.value, "code", None) == "charge_already_captured"


async def test_validation_errors_store_nothing(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    request = IdempotencyRequest("s", "bad-then-good", "fp")
    with pytest.raises(ParameterInvalid):
        await capture(core, owner, charge.id, -5, request)
    assert isinstance(await capture(core, owner, charge.id, None, request), Charge)


async def test_concurrent_duplicates_run_once(core: Core) -> None:
    owner = await new_owner(core)
    charge = await authorized_charge(core, owner)
    request = IdempotencyRequest("s", "dup", "fp")

    async def attempt() -> str:
        try:
            result = await core.runner.run(
                request, lambda _: b"x", lambda claim: core.charges.refund(owner, charge.id, 100, None, claim)
            )
        except IdempotencyConflict:
            return "conflict"
        except StateConflict:
            return "state"
        return "replay" if isinstance(result, Replay) else "ran"

    await core.charges.capture(owner, charge.id, None)
    outcomes = await asyncio.gather(*(attempt() for _ in range(10)))
    assert outcomes.count("ran") == 1
    final = await core.charges.get(owner, charge.id)
    assert final.amount_refunded == 100


async def test_abandoned_claim_is_taken_over_and_keys_expire(core: Core, clock: SettableClock) -> None:
    store = PgIdempotencyStore(core.pool)
    request = IdempotencyRequest("s", "crash", "fp")
    assert (await store.claim(request, clock.now())).outcome is ClaimOutcome.CLAIMED
    assert (await store.claim(request, clock.now())).outcome is ClaimOutcome.IN_PROGRESS
    later = clock.now() + timedelta(seconds=61)
    assert (await store.claim(request, later)).outcome is ClaimOutcome.CLAIMED
    other = IdempotencyRequest("s", "crash", "other-body")
    assert (await store.claim(other, later)).outcome is ClaimOutcome.MISMATCH
    assert (await store.claim(other, later + timedelta(hours=24))).outcome is ClaimOutcome.CLAIMED


async def test_early_check_lets_a_retry_take_over_a_lapsed_claim(core: Core, clock: SettableClock) -> None:
    """The gateway's CheckIdempotencyKey runs before every keyed write: a lapsed claim of a dead process
    must not answer `in progress` there, or the retry that would take it over never reaches `claim`."""
    store = PgIdempotencyStore(core.pool, claim_lease=timedelta(seconds=5))
    request = IdempotencyRequest("s", "died-mid-request", "fp")
    assert (await store.claim(request, clock.now())).outcome is ClaimOutcome.CLAIMED
    assert (await store.check(request, clock.now())).outcome is ClaimOutcome.IN_PROGRESS
    later = clock.now() + timedelta(seconds=6)
    assert (await store.check(request, later)).outcome is ClaimOutcome.CLAIMED
    other = IdempotencyRequest("s", "died-mid-request", "other-body")
    assert (await store.check(other, later)).outcome is ClaimOutcome.MISMATCH
    assert (await store.claim(request, later)).outcome is ClaimOutcome.CLAIMED
    assert (await store.check(request, later)).outcome is ClaimOutcome.IN_PROGRESS
