"""Runs a mutating use case at most once per Idempotency-Key (DESIGN §6).

The answer is stored in the same transaction as the state change (the operation receives a `Claim`
and passes `claim.completion(result)` to its repository), so a crash can never leave a refund
applied without its stored answer: a retry either replays the answer or, if nothing committed,
takes over the abandoned claim and runs the operation once. A claim is abandoned when its lease lapses
or, sooner, when its core stops beating (docs/running.md); each claim carries an owner token,
and the run that lost its claim can neither write its change nor complete or release the claim.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from core_server.kernel.application.ports import (
    ClaimOutcome,
    Clock,
    IdempotencyCompletion,
    IdempotencyRequest,
    IdempotencyStore,
)
from core_server.kernel.domain.errors import DomainError, IdempotencyConflict, StateConflict
from core_server.kernel.domain.replays import Replay, ReplayedError, StoredError

logger = logging.getLogger(__name__)

T = TypeVar("T")

MISMATCH_MESSAGE = (
    "Keys for idempotent requests can only be used with the same parameters they were first used with."
)
IN_PROGRESS_MESSAGE = "A request with this Idempotency-Key is still being processed; retry later."


class Claim(Generic[T]):
    """Ownership of a key for one run; renders the answer to store with the state change."""

    def __init__(
        self, request: IdempotencyRequest, render: Callable[[T], bytes], owner: str | None = None
    ) -> None:
        self.request = request
        self._render = render
        self.owner = owner
        self.handed_out = False

    def completion(self, result: T) -> IdempotencyCompletion:
        """Called by the operation for its own transaction; the runner then skips its fallback write."""
        self.handed_out = True
        return IdempotencyCompletion(self.request.scope, self.request.key, self._render(result), self.owner)


def stored_error(error: DomainError) -> StoredError:
    return StoredError(type=error.type, code=error.code, message=error.message, param=error.param)


class IdempotentRunner:
    def __init__(self, store: IdempotencyStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def check(self, request: IdempotencyRequest) -> bool:
        """The early check before validation; True when a stored answer will be replayed."""
        record = await self._store.check(request, self._clock.now())
        self._refuse_conflicts(record.outcome)
        return record.outcome is ClaimOutcome.REPLAY

    async def run(
        self,
        request: IdempotencyRequest | None,
        render: Callable[[T], bytes],
        operation: Callable[[Claim[T] | None], Awaitable[T]],
    ) -> T | Replay:
        if request is None:
            return await operation(None)
        record = await self._store.claim(request, self._clock.now())
        self._refuse_conflicts(record.outcome)
        if record.outcome is ClaimOutcome.REPLAY:
            if record.error is not None:
                raise ReplayedError(record.error)
            assert record.response is not None
            return Replay(record.response)
        # Shielded: a caller that goes away (the client's deadline, a dropped connection) must not cut the
        # bookkeeping short, or the claim would be released while its write may still commit.
        claimed = asyncio.ensure_future(
            self._run_claimed(request, Claim(request, render, record.owner), operation)
        )
        claimed.add_done_callback(_consume)
        # await: the claimed operation runs to its end in its own task even if this await is cancelled.
        return await asyncio.shield(claimed)

    async def _run_claimed(
        self,
        request: IdempotencyRequest,
        claim: Claim[T],
        operation: Callable[[Claim[T] | None], Awaitable[T]],
    ) -> T:
        try:
            result = await operation(claim)
        except StateConflict as exc:
            # The operation ran and the state said no: that answer is the request's result.
            await self._store.store_error(request, stored_error(exc), claim.owner)
            raise
        except BaseException as exc:
            if getattr(type(exc), "keeps_claim", False):
                raise  # it may have written (actors' TurnInterrupted): the claim lapses, never released
            # The operation ended without a write (validation, an outage, a message that never ran:
            # registry.ask waits out a begun turn), so nothing is stored and a retry runs it afresh.
            # If the release itself fails, the claim lapses after CLAIM_LEASE and can be taken over.
            try:
                await self._store.release(request, claim.owner)
            except Exception:  # noqa: BLE001 - the original error is the one to report
                logger.warning("could not release idempotency claim %s", request.key)
            raise
        if not claim.handed_out:
            # Operations without a transaction of their own store their answer here.
            await self._store.complete(claim.completion(result))
        return result

    async def answer_taken(self, request: IdempotencyRequest) -> Replay:
        """A write that claims its key in its own statement (FirstClaim) found the key taken: the stored
        answer (or stored state error) of the first request, else the usual 409."""
        record = await self._store.check(request, self._clock.now())
        if record.outcome is ClaimOutcome.REPLAY:
            if record.error is not None:
                raise ReplayedError(record.error)
            assert record.response is not None
            return Replay(record.response)
        self._refuse_conflicts(record.outcome)
        # Free again by now (a lapsed or released claim): the client's retry will find it so.
        raise IdempotencyConflict(IN_PROGRESS_MESSAGE, param="Idempotency-Key")

    @staticmethod
    def _refuse_conflicts(outcome: ClaimOutcome) -> None:
        if outcome is ClaimOutcome.MISMATCH:
            raise IdempotencyConflict(MISMATCH_MESSAGE, param="Idempotency-Key")
        if outcome is ClaimOutcome.IN_PROGRESS:
            raise IdempotencyConflict(IN_PROGRESS_MESSAGE, param="Idempotency-Key")


def _consume(task: asyncio.Future[Any]) -> None:
    """Reads the outcome of a claimed operation whose caller left, so asyncio does not log it as lost."""
    if not task.cancelled():
        task.exception()
