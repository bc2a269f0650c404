"""The ports of the payments context: charge storage and payment processors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core_server.kernel.application.job_claims import JobClaim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import FirstClaim, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.checkout import PaymentAttempt
from core_server.payments.domain.payment import PaymentOutcome


@dataclass(frozen=True, slots=True)
class ChargeQuery:
    merchant_id: str
    environment: Environment
    limit: int
    status: ChargeStatus | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    starting_after: str | None = None
    seen_at: datetime | None = None
    """The merchant's time: a `status` filter matches the status a read at that time shows."""
    customer_email: str | None = None
    """Only charges of this customer e-mail, compared case-insensitively (the dashboard's search)."""
    invoice_id: str | None = None
    """Only the payment attempts of this invoice (the dashboard's invoice page)."""


@dataclass(frozen=True, slots=True)
class DayVolume:
    """Captured amounts of one UTC day in one currency."""

    day: datetime
    currency: str
    amount: int
    count: int


class ChargeRepository(Protocol):
    async def insert_new(self, charge: Charge, write: TurnWrite, claim: FirstClaim | None) -> bool:
        """Charge, its events and (with `claim`) the key's claim and answer in one statement; False when
        the key was not free (nothing written); IdCollision on a taken id."""

    async def load_for_activation(self, charge_id: str) -> tuple[Charge, int] | None:
        """Loads the charge and bumps its fence token, fencing out any earlier owner."""

    async def save(self, charge: Charge, fence: int, write: TurnWrite) -> None:
        """Fenced write of state, new refunds, dispute and events; StaleFence when the fence moved."""

    async def get(self, charge_id: str) -> Charge | None:
        """A read without ownership checks; callers check the tenant."""

    async def list(self, query: ChargeQuery) -> Page[Charge]:
        """Newest first; `total_count` counts every charge matching the filters."""

    async def cursor_exists(self, query: ChargeQuery) -> bool:
        """Whether `starting_after` names a charge of the same merchant and environment."""

    async def daily_volume(
        self, merchant_id: str, environment: Environment, since: datetime, until: datetime
    ) -> Sequence[DayVolume]:
        """Per (UTC day, currency), the captures with `since <= captured_at < until`, oldest first."""

    async def due_for_expiry(self, claim: JobClaim, limit: int, owner: Owner | None = None) -> Sequence[str]:
        """Checkouts past 24 h and holds past 7 days, at each merchant's time for real time `claim.now`;
        claimed with `claim` unless `owner` (the kernel's job claims; TimerSweep's DueWork)."""

    async def due_authorizations(
        self, claim: JobClaim, limit: int, owner: Owner | None = None
    ) -> Sequence[str]:
        """Pending charges whose asynchronous authorization has fallen due, at each merchant's time;
        claimed with `claim` unless `owner`."""

    async def charge_id_for_dispute(self, dispute_id: str) -> str | None: ...


class InvoiceChargeRepository(Protocol):
    """The charges of invoices' payment attempts (DESIGN §9), stored with every other charge."""

    async def insert_new(self, charge: Charge, write: TurnWrite, claim: FirstClaim | None) -> bool:
        """As ChargeRepository.insert_new; InvoiceAttemptTaken when the (invoice, attempt) has a charge."""

    async def find_invoice_attempt(self, invoice_id: str, attempt: int) -> Charge | None:
        """The charge of an invoice's payment attempt, if one was written."""


class InvoiceAttemptTaken(Exception):
    """`insert_new` met another charge for the same (invoice, attempt): nothing was written."""


@dataclass(frozen=True, slots=True)
class PaymentRequest:
    """What a processor authorizes: an amount of a currency from a payment source, once per attempt key.

    No charge in it: a checkout completion and an invoice's payment attempt ask alike. `source` is the
    card details or PayPal account entered at checkout; for a vaulted method (renewals, dunning) it
    names only the method and `token`, the vault's gateway token, is what is charged. `attempt_key`
    lets a processor recognise a retry of the same attempt (the charge id for a checkout completion,
    `<invoice id>:<attempt>` for an invoice).
    """

    amount: int
    currency: str
    source: PaymentAttempt
    attempt_key: str
    token: str | None = None


class PaymentProcessor(Protocol):
    """Authorizes a payment; a decline is a PaymentOutcome, an outage an exception."""

    async def authorize(self, request: PaymentRequest) -> PaymentOutcome: ...


class Processors(Protocol):
    def for_environment(self, environment: Environment) -> PaymentProcessor: ...
