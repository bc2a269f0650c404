"""ChargeActor against in-memory fakes: fenced saves, one public shape in events, tenant isolation, stale
fences, double completion and the merchant's clock.

Every test drives the actor through an `ActorRegistry` (as the core does), with a `FakeLease`, a
`FakeChargeRepository` that fences like PostgreSQL, `FakeClocks` and a processor that answers like the
sandbox and records what it was asked.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest
from connect import errors

from core_server.actors import ActorRegistry, ActorStopped
from core_server.db.errors import StaleFence
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import IdempotencyCompletion, IdempotencyRequest
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import NotFound, StateConflict
from core_server.payments.application.charge_actor import ChargeActor, ChargeActorDeps
from core_server.payments.application.charge_commands import (
    CaptureCharge,
    CheckoutResult,
    CompleteCheckout,
    ExpireIfDue,
    RefundCharge,
    VoidCharge,
)
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.events import ChargeEventType
from core_server.payments.domain.refund import Refund
from tests.fakes import FakeChargeRepository, FakeClocks, FakeLease, RecordingProcessors
from tests.support.core_shapes import (
    CARD_NUMBER,
    CHARGE_ID,
    DECLINED_CARD_NUMBER,
    FINGERPRINT_KEY,
    MERCHANT_ID,
    NOW,
    RETURN_URL,
    VIEWS,
    authorized,
    captured,
    new_charge,
)

OWNER = Owner(MERCHANT_ID, Environment.TEST)
OTHER_CHARGE_ID = "ch_" + "b" * 32


class Harness:
    """A charge registry over fakes; the factory records every actor it builds (one per activation)."""

    def __init__(self) -> None:
        # An hour after the charges of core_shapes were made: nothing is due at real time.
        self.clocks = FakeClocks(NOW + timedelta(hours=1))
        self.charges = FakeChargeRepository(self.clocks)
        # The processor keeps each authorization in flight briefly, so a second completion arrives meanwhile.
        self.processors = RecordingProcessors(delay=0.01)
        self.deps = ChargeActorDeps(
            charges=self.charges,
            clocks=self.clocks,
            processors=self.processors,
            fingerprint_key=FINGERPRINT_KEY,
            views=VIEWS,
        )
        self.lease_store: dict[str, str] = {}
        self.actors: list[ChargeActor] = []
        # A long idle timeout: the actor keeps its in-memory state between the asks of one test.
        self.registry = ActorRegistry(self._build, idle_timeout=5.0, name="charge")

    def _build(self, charge_id: str) -> ChargeActor:
        lease = FakeLease(f"charge:{charge_id}", store=self.lease_store)
        actor = ChargeActor(charge_id, lease, self.deps, acquire_wait=0.5)
        self.actors.append(actor)
        return actor

    async def ask(self, message: object, charge_id: str = CHARGE_ID) -> Any:
        return await self.registry.ask(charge_id, message, timeout=2.0)

    async def stored(self, charge_id: str = CHARGE_ID) -> Charge:
        charge = await self.charges.get(charge_id)
        assert charge is not None
        return charge


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    h = Harness()
    yield h
    await h.registry.stop_all(grace=0.5)
    me = asyncio.current_task()
    assert [t for t in asyncio.all_tasks() if t is not me and not t.done()] == []
    assert h.lease_store == {}  # every lease released


def card(number: str = CARD_NUMBER) -> CompleteCheckout:
    return CompleteCheckout("card", CardInput(number, 12, 2030, "123"), None)


def render_refund(result: tuple[Refund, Charge]) -> bytes:
    refund, charge = result
    return json.dumps({"refund": refund.id, "charge": VIEWS.charge(charge)}, sort_keys=True).encode()


async def test_a_capture_commits_one_save_at_the_current_fence_and_the_next_command_sees_it(
    harness: Harness,
) -> None:
    harness.charges.put(authorized())

    charge = await harness.ask(CaptureCharge(OWNER, None))

    assert charge.status is ChargeStatus.CAPTURED
    assert [charge_id for charge_id, _ in harness.charges.saves] == [CHARGE_ID]
    assert harness.charges.save_fences == [harness.charges.fence(CHARGE_ID)] == [1]
    assert (await harness.stored()).status is ChargeStatus.CAPTURED
    # The same activation answers the next command from the captured state, not the authorized one.
    with pytest.raises(StateConflict) as refused:
        await harness.ask(CaptureCharge(OWNER, None))
    assert refused.value.code == errors.CHARGE_ALREADY_CAPTURED.code
    assert len(harness.actors) == 1 and harness.charges.activations == 1
    assert len(harness.charges.saves) == 1


async def test_a_refund_saves_one_refunded_event_carrying_the_stored_charge_and_the_claims_answer(
    harness: Harness,
) -> None:
    harness.charges.put(captured())
    request = IdempotencyRequest(scope=f"{MERCHANT_ID}:test", key="refund-1", fingerprint="f" * 64)
    claim: Claim[tuple[Refund, Charge]] = Claim(request, render_refund)

    result = await harness.ask(RefundCharge(OWNER, 1000, "customer_request", claim))

    [(charge_id, write)] = harness.charges.saves
    stored = await harness.stored()
    assert charge_id == CHARGE_ID and stored.status is ChargeStatus.PARTIALLY_REFUNDED
    [event] = write.events
    assert event.type == ChargeEventType.REFUNDED.value
    assert event.payload["data"]["object"] == VIEWS.charge(stored)
    assert write.completion == IdempotencyCompletion(request.scope, request.key, render_refund(result))

    # The next turn writes its own event only: the first one was handed to the outbox already.
    await harness.ask(RefundCharge(OWNER, None, None))
    _, second = harness.charges.saves[1]
    stored = await harness.stored()
    assert [e.type for e in second.events] == [ChargeEventType.REFUNDED.value]
    assert second.events[0].payload["data"]["object"] == VIEWS.charge(stored)
    assert stored.status is ChargeStatus.REFUNDED
    assert second.completion is None


FOREIGN_OWNERS = [
    pytest.param(Owner("acct_other", Environment.TEST), id="other-merchant"),
    pytest.param(Owner(MERCHANT_ID, Environment.LIVE), id="other-environment"),
]
COMMANDS: list[Any] = [
    pytest.param(authorized, lambda owner: CaptureCharge(owner, None), id="capture"),
    pytest.param(captured, lambda owner: RefundCharge(owner, None, None), id="refund"),
    pytest.param(authorized, lambda owner: VoidCharge(owner), id="void"),
]


@pytest.mark.parametrize("owner", FOREIGN_OWNERS)
@pytest.mark.parametrize(("make_charge", "command"), COMMANDS)
async def test_a_command_for_another_tenants_charge_is_not_found_and_saves_nothing(
    harness: Harness,
    owner: Owner,
    make_charge: Callable[[], Charge],
    command: Callable[[Owner], object],
) -> None:
    harness.charges.put(make_charge())
    before = await harness.stored()

    with pytest.raises(NotFound) as foreign:
        await harness.ask(command(owner))
    # The very answer an unknown id gets, so it leaks nothing about the charge.
    with pytest.raises(NotFound) as unknown:
        await harness.ask(command(owner), charge_id=OTHER_CHARGE_ID)

    assert (foreign.value.code, foreign.value.param) == (unknown.value.code, unknown.value.param)
    assert foreign.value.message == f"No such charge: '{CHARGE_ID}'"
    assert harness.charges.saves == []
    assert await harness.stored() == before
    # The owner's own command goes through: the refusal was the tenant's, not the state's.
    await harness.ask(command(OWNER))
    assert len(harness.charges.saves) == 1


async def test_a_stale_fence_fails_its_caller_stops_the_actor_stores_nothing_and_the_next_ask_reloads(
    harness: Harness,
) -> None:
    harness.charges.put(authorized())
    await harness.ask(CaptureCharge(OWNER, None))
    before = await harness.stored()
    new_fence = harness.charges.take_over(CHARGE_ID)

    outcomes = await asyncio.gather(
        harness.ask(RefundCharge(OWNER, 1000, None)),
        harness.ask(RefundCharge(OWNER, 500, None)),
        return_exceptions=True,
    )

    stale, queued = outcomes

    assert isinstance(stale, StaleFence)
    assert isinstance(queued, ActorStopped)  # the actor stopped: the message behind never ran
    first_actor = harness.actors[0]
    await first_actor.wait_stopped()
    assert len(harness.charges.saves) == 1  # only the capture
    assert await harness.stored() == before
    assert harness.charges.fence(CHARGE_ID) == new_fence

    refund, charge = await harness.ask(RefundCharge(OWNER, 1000, None))

    assert len(harness.actors) == 2 and harness.charges.activations == 2
    assert harness.charges.fence(CHARGE_ID) == new_fence + 1
    assert harness.charges.save_fences == [1, new_fence + 1]
    assert charge.status is ChargeStatus.PARTIALLY_REFUNDED and refund.amount == 1000
    assert (await harness.stored()).refunds == [refund]


async def test_completing_checkout_twice_at_once_authorizes_once(harness: Harness) -> None:
    charge = new_charge()
    harness.charges.put(charge)

    answers = await asyncio.gather(harness.ask(card()), harness.ask(card()), return_exceptions=True)

    [request] = harness.processors.requests
    assert (request.amount, request.currency, request.attempt_key) == (
        charge.amount,
        charge.currency,
        CHARGE_ID,
    )
    assert request.source.card is not None and request.source.card.number == CARD_NUMBER
    first, second = answers
    assert isinstance(first, CheckoutResult) and first.success and first.status == "authorized"
    assert isinstance(second, StateConflict)
    assert second.code == errors.INVALID_STATE.code
    assert second.message == "This payment has already been processed"
    [(_, write)] = harness.charges.saves
    assert [e.type for e in write.events] == [ChargeEventType.COMPLETED.value]
    assert (await harness.stored()).status is ChargeStatus.AUTHORIZED


async def test_expire_if_due_judges_the_charge_by_its_merchants_clock(harness: Harness) -> None:
    live_id = "ch_" + "c" * 32
    harness.charges.put(new_charge())
    harness.charges.put(new_charge(live_id, livemode=True))

    # At real time (an hour in) the checkout is not due.
    assert await harness.ask(ExpireIfDue()) is False
    assert harness.charges.saves == []

    # The merchant's TEST clock runs 25 h ahead: past the 24 h checkout session.
    harness.clocks.set_offset(MERCHANT_ID, timedelta(hours=25), Environment.TEST)
    assert await harness.ask(ExpireIfDue()) is True
    [(charge_id, _)] = harness.charges.saves
    assert charge_id == CHARGE_ID
    assert (await harness.stored()).status is ChargeStatus.EXPIRED

    # A LIVE charge of the same merchant runs on real time, whatever the TEST clock says.
    assert await harness.ask(ExpireIfDue(), charge_id=live_id) is False
    assert len(harness.charges.saves) == 1
    assert (await harness.stored(live_id)).status is ChargeStatus.PENDING


async def test_a_declined_card_fails_the_charge_with_a_failed_event_and_an_unsuccessful_result(
    harness: Harness,
) -> None:
    harness.charges.put(new_charge())

    result = await harness.ask(card(DECLINED_CARD_NUMBER))

    assert result == CheckoutResult(
        success=False,
        charge_id=CHARGE_ID,
        status="failed",
        redirect_url=RETURN_URL,
        test_mode=True,
        error_code="generic_decline",
        error_message="Your card was declined.",
    )
    stored = await harness.stored()
    assert stored.status is ChargeStatus.FAILED and stored.failure_code == "generic_decline"
    [(_, write)] = harness.charges.saves
    [event] = write.events
    assert event.type == ChargeEventType.FAILED.value
    assert event.payload["data"]["object"] == VIEWS.charge(stored)
    assert [r.attempt_key for r in harness.processors.requests] == [CHARGE_ID]
