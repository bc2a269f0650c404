"""The ports the use cases need; storage, locking and processors implement them."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core_server.domain.charge import Charge, ChargeStatus
from core_server.domain.checkout import PaymentAttempt
from core_server.domain.environment import Environment
from core_server.domain.payment import PaymentOutcome


class IdCollision(Exception):
    """A freshly generated id already exists; the caller tries the next candidate."""


class Clock(Protocol):
    def now(self) -> datetime:
        """An aware UTC datetime."""


class Clocks(Protocol):
    """Resolves the clock of one merchant's environment (DESIGN §8: a TEST sandbox clock comes later)."""

    async def resolve(self, merchant_id: str, environment: Environment) -> Clock: ...

    def system(self) -> Clock:
        """For work that spans merchants (sweeps)."""


@dataclass(frozen=True, slots=True)
class IdempotencyCompletion:
    """The stored answer of an idempotent request, written in the transaction of its state change."""

    scope: str
    key: str
    response: bytes


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
class ChargeQuery:
    merchant_id: str
    environment: Environment
    limit: int
    status: ChargeStatus | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    starting_after: str | None = None


@dataclass(frozen=True, slots=True)
class ChargePage:
    charges: Sequence[Charge]
    has_more: bool
    total_count: int


class ChargeRepository(Protocol):
    async def insert_new(self, charge: Charge, claim: FirstClaim | None) -> bool:
        """Charge, its events and (with `claim`) the key's claim and answer in one statement; False when
        the key was not free (nothing written); IdCollision on a taken id."""

    async def load_for_activation(self, charge_id: str) -> tuple[Charge, int] | None:
        """Loads the charge and bumps its fence token, fencing out any earlier owner."""

    async def save(self, charge: Charge, fence: int, completion: IdempotencyCompletion | None) -> None:
        """Fenced write of state, new refunds, dispute and events; StaleFence when the fence moved."""

    async def get(self, charge_id: str) -> Charge | None:
        """A read without ownership checks; callers check the tenant."""

    async def list(self, query: ChargeQuery) -> ChargePage: ...

    async def cursor_exists(self, query: ChargeQuery) -> bool:
        """Whether `starting_after` names a charge of the same merchant and environment."""

    async def due_for_expiry(self, now: datetime, limit: int) -> list[str]: ...

    async def due_authorizations(self, now: datetime, limit: int) -> list[str]:
        """Pending charges whose asynchronous authorization has fallen due."""

    async def charge_id_for_dispute(self, dispute_id: str) -> str | None: ...


class PaymentProcessor(Protocol):
    """Authorizes a payment; a decline is a PaymentOutcome, an outage an exception."""

    async def authorize(self, charge: Charge, attempt: PaymentAttempt) -> PaymentOutcome: ...


class Processors(Protocol):
    def for_environment(self, environment: Environment) -> PaymentProcessor: ...


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
class StoredError:
    """A state error answered to the first request, replayed as it was."""

    type: str
    code: str
    message: str
    param: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"type": self.type, "code": self.code, "message": self.message, "param": self.param}

    @classmethod
    def from_json(cls, data: dict[str, str | None]) -> StoredError:
        return cls(
            type=str(data["type"]),
            code=str(data["code"]),
            message=str(data["message"]),
            param=data.get("param"),
        )


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    outcome: ClaimOutcome
    response: bytes | None = None
    error: StoredError | None = None


class IdempotencyStore(Protocol):
    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord: ...

    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        """Read-only: CLAIMED here means the key is free."""

    async def complete(self, completion: IdempotencyCompletion) -> None:
        """Stores the answer when the operation's own transaction did not (a no-op if it did)."""

    async def store_error(self, request: IdempotencyRequest, error: StoredError) -> None: ...

    async def release(self, request: IdempotencyRequest) -> None: ...
