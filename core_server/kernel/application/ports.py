"""The ports the use cases need; storage, locking and processors implement them."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.replays import StoredError
from core_server.kernel.domain.sandbox_clock import AdvanceLimit


@dataclass(frozen=True, slots=True)
class TurnWrite:
    """What an actor's turn commits beside its aggregate's rows, in the same statement: the events it
    caused (rendered for the outbox) and, for an idempotent request, the answer to store."""

    events: Sequence[OutboxEvent] = ()
    completion: IdempotencyCompletion | None = None


class Clock(Protocol):
    def now(self) -> datetime:
        """An aware UTC datetime."""


class ClockOffsets(Protocol):
    """How far each merchant's TEST clock runs ahead of real time (zero for a merchant never advanced)."""

    async def get(self, merchant_id: str) -> timedelta: ...

    async def set(self, merchant_id: str, offset: timedelta) -> None:
        """Stores the offset and tells every core, so each resolves the new time at once."""


class AdvanceLimits(Protocol):
    """How far one advance may move a merchant's TEST clock (DESIGN §10.5).

    The limit depends on the merchant's TEST subscriptions, which belong to billing: billing implements this
    port and bootstrap wires it in, so the kernel reads no context.
    """

    async def limit(self, merchant_id: str, test_now: datetime) -> AdvanceLimit: ...


class Clocks(Protocol):
    """Resolves the clock of one merchant's environment (DESIGN §8, §9)."""

    async def resolve(self, merchant_id: str, environment: Environment) -> Clock: ...

    def system(self) -> Clock:
        """For work that spans merchants (sweeps)."""


@dataclass(frozen=True, slots=True)
class IdempotencyCompletion:
    """The stored answer of an idempotent request, written in the transaction of its state change."""

    scope: str
    key: str
    response: bytes
    owner: str | None = None
    """The claim's owner token: the answer is stored (and the change written) only while it is the key's."""


@dataclass(frozen=True, slots=True)
class FirstClaim:
    """Claim a free key and store its answer in the very statement that writes a new object.

    For creates only: nothing else can own an object that does not exist yet, so the claim needs no
    earlier round trip of its own. If the key is not free, nothing is written and the caller learns
    so (the key's stored answer, a mismatch or a running first request decide the reply).
    """

    request: IdempotencyRequest
    response: bytes
    now: datetime


@dataclass(frozen=True, slots=True)
class IdempotencyRequest:
    """A mutating request's Idempotency-Key within its scope (a merchant environment or a public page)."""

    scope: str
    key: str
    fingerprint: str


class ClaimOutcome(enum.Enum):
    CLAIMED = "claimed"
    """The key is ours: run the operation."""
    REPLAY = "replay"
    """The same request already completed: answer what it answered."""
    MISMATCH = "mismatch"
    """The key was used with another path or body."""
    IN_PROGRESS = "in_progress"
    """The first request with this key is still running."""


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    outcome: ClaimOutcome
    response: bytes | None = None
    error: StoredError | None = None
    owner: str | None = None
    """With CLAIMED from `claim`: this run's owner token, which completes or releases the claim."""


class IdempotencyStore(Protocol):
    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord: ...

    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        """Read-only: CLAIMED here means the key is free."""

    async def complete(self, completion: IdempotencyCompletion) -> None:
        """Stores the answer when the operation's own transaction did not (a no-op if it did)."""

    async def store_error(self, request: IdempotencyRequest, error: StoredError, owner: str | None) -> None:
        """Stores the state error as the answer, only while `owner` still holds the claim."""

    async def release(self, request: IdempotencyRequest, owner: str | None) -> None:
        """Frees the claim for a retry, only while `owner` still holds it (never a taken-over claim)."""
