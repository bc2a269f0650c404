"""SubscriptionActor: the single writer of one subscription, exactly like the charge's actor.

State is loaded at activation (which takes the row's fence) and every message works on a copy that
replaces the state only after its fenced statement committed; a failed write leaves the state as it
was, and a stale fence stops the actor (another core owns the subscription now).

Three messages: `Change` applies one domain move (the service prepared prices and tax rates outside the
turn, so a turn does no reads but its own); `Collect` makes the charge attempts of owed invoices and
records each outcome (invoice_collection.py: the balance step and payments' charge are other writes,
made inside the turn so that no two attempts of one subscription ever interleave); `RunDue` applies the
earliest billing step due and collects the invoice it opens, in the same turn (the billing run's whole
work for one step: one ask, not a read outside and three turns).
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core_server.actors import EntityActor, EntityLease
from core_server.billing.application.invoice_collection import Collect, InvoicePayer
from core_server.billing.application.subscription_ports import SubscriptionRepository
from core_server.billing.application.subscription_view import subscription_events
from core_server.billing.domain.billing_steps import INVOICING_STEPS, Step, apply_step, next_step
from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_status import still_owed
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clocks, TurnWrite
from core_server.kernel.domain.errors import NotFound


def subscription_not_found(subscription_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' subscriptions."""
    return NotFound(f"No such subscription: '{subscription_id[:100]}'", param="id")


@dataclass(frozen=True, slots=True)
class Change:
    """Apply `apply` to the owner's subscription at the merchant's time and save the result.

    With `claim` and `answer`, the claim's answer (`answer(subscription, result)`) is stored in the same
    statement, unless the move opened an invoice: its answer comes after the charge attempt, so the
    service leaves it to the runner then."""

    owner: Owner
    apply: Callable[[Subscription, datetime], Any]
    claim: Claim[Any] | None = None
    answer: Callable[[Subscription, Any], Any] | None = None


RateLookup = Callable[[Subscription], Awaitable[TaxRate | None]]
"""The subscription's tax rate as it stands (references.py `rate_for`), read when a step needs it."""


@dataclass(frozen=True, slots=True)
class RunDue:
    """Apply the earliest billing step due at the merchant's time (domain/billing_steps.py), at its own
    time, and collect the invoice it opens (its first attempt, made at the step's time).

    A step that opens an invoice needs the tax rate: `rate_for` reads it inside the turn, only then. A
    read in the turn holds the subscription a round trip longer, but saves the billing run a second
    turn and a copy of the state per subscription."""

    rate_for: RateLookup


@dataclass(frozen=True, slots=True)
class StepTaken:
    """What one RunDue applied: the step, whose subscription it was, and whether another step is due at
    the same moment (a clock advance over several periods)."""

    step: Step
    owner: Owner
    more_due: bool


class SubscriptionActor(EntityActor):
    def __init__(
        self,
        subscription_id: str,
        lease: EntityLease | None,
        subscriptions: SubscriptionRepository,
        clocks: Clocks,
        payer: InvoicePayer,
        *,
        acquire_wait: float = 5.0,
    ) -> None:
        super().__init__(subscription_id, lease, acquire_wait=acquire_wait)
        self._subscriptions = subscriptions
        self._clocks = clocks
        self._payer = payer
        self._state: Subscription | None = None
        self._fence = 0
        # Invoices this activation's own saves opened and no attempt has been made for: no charge can
        # name one yet, so their first attempt skips payments' look-up (invoice_collection.py).
        self._opened: set[str] = set()

    async def on_activate(self) -> None:
        loaded = await self._subscriptions.load_for_activation(self.entity_id)
        if loaded is not None:
            self._state, self._fence = loaded

    async def receive(self, message: object) -> Any:
        match message:
            case Change():
                return await self._change(message)
            case Collect():
                return await self._collect(message)
            case RunDue():
                return await self._run_due(message)
        raise TypeError(f"SubscriptionActor cannot handle {type(message).__name__}")

    async def _change(self, change: Change) -> tuple[Any, Subscription]:
        current = self._state
        if current is None or (
            current.merchant_id != change.owner.merchant_id
            or current.environment is not change.owner.environment
        ):
            raise subscription_not_found(self.entity_id)
        working = copy.deepcopy(current)
        result = change.apply(working, await self._now(working))
        completion = None
        if change.claim is not None and change.answer is not None and working.open_invoice() is None:
            completion = change.claim.completion(change.answer(working, result))
        if not working.pending_events and completion is None:
            return result, copy.deepcopy(working)  # nothing moved: nothing to write
        await self._commit(working, completion)
        return result, copy.deepcopy(working)

    async def _collect(self, collect: Collect) -> Subscription:
        current = self._state
        if current is None:
            raise subscription_not_found(self.entity_id)
        await self._attempt(collect)
        final = self._state
        assert final is not None
        return copy.deepcopy(final)

    async def _attempt(self, collect: Collect) -> None:
        """Attempts the invoices `collect` names, each outcome saved before the next attempt."""
        current = self._state
        assert current is not None
        if collect.owed:
            wanted = [i.id for i in current.owed()]
        elif collect.invoice_ids is None:
            wanted = [
                i.id for i in current.invoices if i.status is InvoiceStatus.OPEN and i.attempt_count == 0
            ]
        else:
            wanted = list(collect.invoice_ids)
        for invoice_id in wanted:
            state = self._state
            assert state is not None
            target = next((inv for inv in state.invoices if inv.id == invoice_id), None)
            if target is None or not still_owed(target.status, state.status):
                continue  # paid, voided or canceled meanwhile: nothing to attempt
            working = copy.deepcopy(state)
            invoice = next(inv for inv in working.invoices if inv.id == invoice_id)
            now = collect.at or await self._now(working)
            new = invoice_id in self._opened and invoice.attempt_count == 0
            outcome = await self._payer.attempt(working, invoice, now, invoice_is_new=new)
            if outcome.settlement is not None:
                invoice.settle(outcome.settlement)
            if outcome.paid and outcome.charge_id is None:
                working.settle_free_invoice(invoice, now)
            else:
                working.record_attempt(invoice, outcome.charge_id, outcome.paid, now, outcome.failure_code)
            await self._commit(working, None)
            self._opened.discard(invoice_id)

    async def _run_due(self, run: RunDue) -> StepTaken | None:
        current = self._state
        if current is None:
            return None
        now = await self._now(current)
        step = next_step(current, now)
        if step is None:
            return None
        rate = await run.rate_for(current) if step.kind in INVOICING_STEPS else None
        working = copy.deepcopy(current)
        invoice = apply_step(working, step, rate)
        if working.pending_events:
            await self._commit(working, None)
        if invoice is not None:
            await self._attempt(Collect((invoice.id,), at=step.at))
        after = self._state
        assert after is not None
        owner = Owner(after.merchant_id, after.environment)
        return StepTaken(step, owner, next_step(after, now) is not None)

    async def _now(self, subscription: Subscription) -> datetime:
        return await merchant_now(self._clocks, subscription, whole_seconds=True)

    async def _commit(self, working: Subscription, completion: Any) -> None:
        write = TurnWrite(events=subscription_events(working), completion=completion)
        # The only await that writes: a StaleFence here stops this actor (another process owns it).
        before = self._state
        await self._subscriptions.save(working, self._fence, write, previous=before)
        known = set() if before is None else {invoice.id for invoice in before.invoices}
        self._opened.update(invoice.id for invoice in working.invoices if invoice.id not in known)
        working.pending_events.clear()
        # Only invoices still waiting for a payment stay in memory (the domain looks for them).
        working.invoices = working.owed()
        working.prorations = [p for p in working.prorations if not p.billed]
        working.upcoming = None
        self._state = working
