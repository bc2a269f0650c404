"""ChargeActor: the single writer of one charge, one command at a time.

State is loaded at activation (which also bumps the row's fence token) and every command works on a
copy that replaces the state only after its fenced transaction committed; a failed write leaves the
actor's state as the database has it. The Redis lease keeps two processes from colliding, and the
fence makes a stale owner's write fail instead of overwriting newer state.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from connect import errors

from core_server.actors import EntityActor, EntityLease
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import Clocks, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import Forbidden, NotFound
from core_server.payments.application.charge_commands import (
    CaptureCharge,
    CheckoutResult,
    CloseDispute,
    CompleteCheckout,
    ExpireIfDue,
    OpenDispute,
    RefundCharge,
    VoidCharge,
)
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.application.ports import ChargeRepository, PaymentRequest, Processors
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.checkout import describe_payment, parse_attempt
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.errors import charge_not_found, dispute_not_found
from core_server.payments.domain.ids import new_dispute_id, new_refund_id
from core_server.payments.domain.refund import Refund

CHARGE_NOT_FOUND_MESSAGE = "Charge not found"


@dataclass(frozen=True, slots=True)
class ChargeActorDeps:
    charges: ChargeRepository
    clocks: Clocks
    processors: Processors
    fingerprint_key: bytes
    views: ChargeViews


class ChargeActor(EntityActor):
    def __init__(
        self, charge_id: str, lease: EntityLease | None, deps: ChargeActorDeps, *, acquire_wait: float = 5.0
    ) -> None:
        super().__init__(charge_id, lease, acquire_wait=acquire_wait)
        self._deps = deps
        self._charge: Charge | None = None
        self._fence = 0

    async def on_activate(self) -> None:
        loaded = await self._deps.charges.load_for_activation(self.entity_id)
        if loaded is not None:
            self._charge, self._fence = loaded

    async def receive(self, message: object) -> Any:
        match message:
            case CaptureCharge():
                return await self._capture(message)
            case RefundCharge():
                return await self._refund(message)
            case VoidCharge():
                return await self._void(message)
            case CompleteCheckout():
                return await self._complete(message)
            case OpenDispute():
                return await self._open_dispute(message)
            case CloseDispute():
                return await self._close_dispute(message)
            case ExpireIfDue():
                return await self._expire()
        raise TypeError(f"ChargeActor cannot handle {type(message).__name__}")

    async def _capture(self, cmd: CaptureCharge) -> Charge:
        charge, now = await self._working_copy(cmd.owner)
        charge.capture(cmd.amount, now)
        await self._commit(charge, cmd.claim, charge)
        return charge

    async def _refund(self, cmd: RefundCharge) -> tuple[Refund, Charge]:
        charge, now = await self._working_copy(cmd.owner)
        refund = charge.refund(new_refund_id(), cmd.amount, cmd.reason, now)
        result = (refund, charge)
        await self._commit(charge, cmd.claim, result)
        return result

    async def _void(self, cmd: VoidCharge) -> Charge:
        charge, now = await self._working_copy(cmd.owner)
        charge.void(now)
        await self._commit(charge, cmd.claim, charge)
        return charge

    async def _open_dispute(self, cmd: OpenDispute) -> Dispute:
        if cmd.owner.environment is not Environment.TEST:
            raise Forbidden("Disputes can be simulated only with test keys.", code=errors.TEST_MODE_ONLY.code)
        charge, now = await self._working_copy(cmd.owner)
        dispute = charge.open_dispute(new_dispute_id(), now)
        await self._commit(charge, cmd.claim, dispute)
        return dispute

    async def _close_dispute(self, cmd: CloseDispute) -> Dispute:
        try:
            charge, now = await self._working_copy(cmd.owner)
        except NotFound:
            # Another merchant's (or environment's) dispute: the same answer as an unknown one.
            raise dispute_not_found(cmd.dispute_id) from None
        if charge.dispute is None or charge.dispute.id != cmd.dispute_id:
            raise dispute_not_found(cmd.dispute_id)
        dispute = charge.close_dispute(cmd.outcome, now)
        await self._commit(charge, cmd.claim, dispute)
        return dispute

    async def _complete(self, cmd: CompleteCheckout) -> CheckoutResult:
        charge, now = await self._working_copy(None)
        # Spec order: expired, then pending, then the payment method and its details.
        charge.ensure_payable(now)
        attempt = parse_attempt(cmd.method, cmd.card, cmd.paypal_email, now)
        processor = self._deps.processors.for_environment(charge.environment)
        # Awaits the processor while holding the lease: a second completion queues behind this one
        # and then finds the charge no longer pending, so a double click never pays twice.
        outcome = await processor.authorize(
            PaymentRequest(charge.amount, charge.currency, attempt, charge.id)
        )
        if not outcome.reached_processor:
            return CheckoutResult(
                success=False,
                charge_id=charge.id,
                status=charge.status.value,
                redirect_url=charge.failure_redirect_url,
                test_mode=not charge.livemode,
                error_code=outcome.error_code,
                error_message=outcome.error_message,
            )
        charge.complete(attempt.method, describe_payment(attempt, self._deps.fingerprint_key), outcome, now)
        if outcome.approved:
            result = CheckoutResult(
                success=True,
                charge_id=charge.id,
                status="pending" if outcome.pending else charge.status.value,
                redirect_url=charge.return_url,
                test_mode=not charge.livemode,
            )
        else:
            result = CheckoutResult(
                success=False,
                charge_id=charge.id,
                status=charge.status.value,
                redirect_url=charge.failure_redirect_url,
                test_mode=not charge.livemode,
                error_code=outcome.error_code,
                error_message=outcome.error_message,
            )
        await self._commit(charge, cmd.claim, result)
        return result

    async def _expire(self) -> bool:
        if self._charge is None:
            return False
        current = self._charge
        now = await merchant_now(self._deps.clocks, current)
        charge = copy.deepcopy(current)
        if not charge.expire_if_due(now):
            return False
        await self._commit(charge, None, None)
        return True

    async def _working_copy(self, owner: Owner | None) -> tuple[Charge, datetime]:
        """A copy of the owned charge, with any timeout that fell due already applied and saved."""
        current = self._charge
        if current is None or (
            owner is not None
            and (current.merchant_id != owner.merchant_id or current.environment is not owner.environment)
        ):
            if owner is None:
                raise NotFound(CHARGE_NOT_FOUND_MESSAGE, param="id")
            raise charge_not_found(self.entity_id)
        now = await merchant_now(self._deps.clocks, current)
        charge = copy.deepcopy(current)
        if charge.expire_if_due(now):
            # Persist the lapse on its own, so it stands even if the command below is refused.
            await self._commit(charge, None, None)
            charge = copy.deepcopy(charge)
        return charge, now

    async def _commit(self, charge: Charge, claim: Claim[Any] | None, result: object) -> None:
        write = TurnWrite(
            events=self._deps.views.events(charge),
            completion=claim.completion(result) if claim is not None else None,
        )
        # The only await that writes: a StaleFence here stops this actor (another process owns the charge).
        await self._deps.charges.save(charge, self._fence, write)
        charge.pending_events.clear()
        charge.pending_ledger.clear()
        self._charge = charge
