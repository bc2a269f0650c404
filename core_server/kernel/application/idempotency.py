"""Runs a mutating use case at most once per Idempotency-Key (DESIGN §6).

The answer is stored in the same transaction as the state change (the operation receives a `Claim`
and passes `claim.completion(result)` to its repository), so a crash can never leave a refund
applied without its stored answer: a retry either replays the answer or, if nothing committed,
takes over the abandoned claim and runs the operation once. A claim is abandoned when its lease lapses
or, sooner, when its core stops beating (docs/running.md); each claim carries an owner token,
and the run that lost its claim can neither write its change nor complete or release the claim.

Every mutating RPC reaches this runner through one function, `kernel/transport/idempotent_rpc.py`; the
use cases below it see only the `Claim`. The one other caller is an internal key of the application
(billing's cancel refund, under a scope no request can use).

A reused key with another request is a 409 before anything else the core says (DESIGN §5a): the claim
comes before the operation runs, so its validation never speaks first; a create whose write claims the
key itself (`first_claim`) asks the key (`check`) when it fails before that write.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from core_server.kernel.application.ports import (
    ClaimOutcome,
    Clock,
    FirstClaim,
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


class AnswerSealer(Protocol):
    """Encrypts blobs at rest; `context` is authenticated, so a sealed blob opens only where it was stored.
    The blob names its master key itself (the generic idempotency table has no key-id column).

    Implemented by `core_server.security.secret_box.SecretBox`.
    """

    def seal_blob(self, plaintext: bytes, context: str) -> bytes: ...

    def open_blob(self, blob: bytes, context: str) -> bytes: ...


def answer_context(idempotency: IdempotencyRequest) -> str:
    """Associated data of a sealed stored answer: it opens only for the scope and key it was stored under."""
    return f"idempotent-answer:{idempotency.scope}:{idempotency.key}"


class KeyTaken(Exception):
    """A write that claims its key in its own statement (FirstClaim) found the key taken; nothing was
    written. The runner answers it (`run` with `first_claim`)."""


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

    def first_write(self, result: T, now: datetime) -> FirstClaim:
        """For a create that claims the key in the statement writing it (the runner's `first_claim`)."""
        self.handed_out = True
        return FirstClaim(self.request, self._render(result), now)


def stored_error(error: DomainError) -> StoredError:
    return StoredError(type=error.type, code=error.code, message=error.message, param=error.param)


class IdempotentRunner:
    def __init__(
        self, store: IdempotencyStore, clock: Clock, answer_sealer: AnswerSealer | None = None
    ) -> None:
        self._store = store
        self._clock = clock
        self._sealer = answer_sealer

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
        *,
        sealed: bool = False,
        first_claim: bool = False,
    ) -> T | Replay:
        """Claims the key, runs `operation` once under it, stores `render(result)` (sealed at rest with
        `sealed`: the answer carries a secret kept nowhere else in clear) and replays it to a retry.
        With `first_claim`, the operation's own write claims the key (`_run_first`)."""
        if request is None:
            return await operation(None)
        if first_claim:
            return await self._run_first(request, self._stored(request, render, sealed), operation, sealed)
        record = await self._store.claim(request, self._clock.now())
        self._refuse_conflicts(record.outcome)
        if record.outcome is ClaimOutcome.REPLAY:
            return self._replay(request, record.response, record.error, sealed)
        # Shielded: a caller that goes away (the client's deadline, a dropped connection) must not cut the
        # bookkeeping short, or the claim would be released while its write may still commit.
        claim = Claim(request, self._stored(request, render, sealed), record.owner)
        claimed = asyncio.ensure_future(self._run_claimed(request, claim, operation))
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

    async def _run_first(
        self,
        request: IdempotencyRequest,
        stored: Callable[[T], bytes],
        operation: Callable[[Claim[T] | None], Awaitable[T]],
        sealed: bool,
    ) -> T | Replay:
        """For a create that claims the key in the very statement writing it (`Claim.first_write`): one
        round trip, no claim before. The operation raises `KeyTaken` when its write found the key taken;
        a domain error before that write (validation) answers the key's 409 first, if it has one."""
        try:
            return await operation(Claim(request, stored))
        except KeyTaken:
            return await self._answer_taken(request, sealed)
        except (IdempotencyConflict, ReplayedError):
            raise
        except DomainError:
            await self.check(request)  # a reused key with another request: the 409 before the 400
            raise

    async def _answer_taken(self, request: IdempotencyRequest, sealed: bool) -> Replay:
        """The stored answer (or stored state error) of the first request, else the usual 409."""
        record = await self._store.check(request, self._clock.now())
        if record.outcome is ClaimOutcome.REPLAY:
            return self._replay(request, record.response, record.error, sealed)
        self._refuse_conflicts(record.outcome)
        # Free again by now (a lapsed or released claim): the client's retry will find it so.
        raise IdempotencyConflict(IN_PROGRESS_MESSAGE, param="Idempotency-Key")

    def _stored(
        self, request: IdempotencyRequest, render: Callable[[T], bytes], sealed: bool
    ) -> Callable[[T], bytes]:
        """What is kept at rest: the rendered answer, or with `sealed` that answer encrypted (AES-GCM,
        bound to the key's scope and key by `answer_context`)."""
        if not sealed:
            return render
        sealer = self._required_sealer()
        return lambda result: sealer.seal_blob(render(result), answer_context(request))

    def _replay(
        self, request: IdempotencyRequest, response: bytes | None, error: StoredError | None, sealed: bool
    ) -> Replay:
        if error is not None:
            raise ReplayedError(error)
        assert response is not None
        if sealed:
            response = self._required_sealer().open_blob(response, answer_context(request))
        return Replay(response)

    def _required_sealer(self) -> AnswerSealer:
        if self._sealer is None:
            raise RuntimeError("a sealed idempotent answer needs the runner's answer_sealer (bootstrap)")
        return self._sealer

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
