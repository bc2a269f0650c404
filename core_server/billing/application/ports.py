"""What the billing use cases need from storage; the PostgreSQL adapters live in billing/storage."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from core_server.billing.domain.credit_balance import CustomerBalanceTransaction, InvoiceSettlement
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.payment_method import PaymentMethod
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.sealed import Sealed


class EmailTaken(Exception):
    """Another customer of the tenant has this e-mail (the unique index said so)."""


class UnknownPaymentMethod(Exception):
    """A new default payment method that is not one of the customer's (checked in the write)."""


CustomerMutation = Callable[[Customer], tuple[Customer, Sequence[OutboxEvent]]]
"""Run inside the write transaction on the locked row: the new state and the events it logs."""


class CustomerRepository(Protocol):
    async def insert(
        self,
        customer: Customer,
        events: Sequence[OutboxEvent],
        completion: IdempotencyCompletion | None,
    ) -> None:
        """Raises IdCollision (the id exists) or EmailTaken; events commit with the row."""

    async def get(self, merchant_id: str, environment: Environment, customer_id: str) -> Customer | None: ...

    async def exists(self, merchant_id: str, environment: Environment, customer_id: str) -> bool: ...

    async def list(
        self,
        merchant_id: str,
        environment: Environment,
        *,
        email: str | None,
        limit: int,
        starting_after: str | None,
    ) -> Page[Customer]: ...

    async def update(
        self, merchant_id: str, environment: Environment, customer_id: str, mutate: CustomerMutation
    ) -> Customer | None:
        """Locks the row, applies `mutate`, saves the result with its events; None when there is no such
        customer. Raises EmailTaken, UnknownPaymentMethod when a changed default names no method of the
        customer, or what `mutate` raises (nothing is written then)."""


class TokenSealer(Protocol):
    """Seals a payment method's gateway token (AES-GCM, key id beside the ciphertext); the payment
    method id is the context, so a sealed token copied onto another row does not open."""

    def seal(self, plaintext: str, context: str) -> Sealed: ...

    def open(self, sealed: Sealed, context: str) -> str: ...


VaultDecision = Callable[[Customer], tuple[Customer, Sequence[OutboxEvent]]]
"""Run on the locked customer inside an attach or detach: its new state and every event to log."""


class PaymentMethodRepository(Protocol):
    async def attach(
        self,
        method: PaymentMethod,
        sealed_token: Sealed,
        decide: VaultDecision,
        completion: IdempotencyCompletion | None,
    ) -> Customer | None:
        """Inserts the method under its locked customer, saves the customer `decide` returns, logs the
        events; None when the customer is not the tenant's. Raises IdCollision for a taken id."""

    async def customer_exists(self, merchant_id: str, environment: Environment, customer_id: str) -> bool: ...

    async def list(
        self, customer_id: str, *, limit: int, starting_after: str | None, tenant: str = ""
    ) -> Page[PaymentMethod]:
        """A customer's methods, newest first, with their count (the customer is checked before);
        `tenant`, the customer's merchant, is whose share of the list slots it takes (scan_gate)."""

    async def exists(self, customer_id: str, payment_method_id: str) -> bool: ...

    async def default_with_token(
        self, merchant_id: str, environment: Environment, customer_id: str
    ) -> tuple[PaymentMethod, Sealed, str] | None:
        """The customer's default method, its sealed token and the customer's e-mail (what a charge of
        the method needs, in one read); None without a default."""

    async def detach(
        self,
        merchant_id: str,
        environment: Environment,
        customer_id: str,
        payment_method_id: str,
        decide: Callable[[Customer, PaymentMethod], tuple[Customer, Sequence[OutboxEvent]]],
    ) -> PaymentMethod | None:
        """Deletes the customer's method, saves the customer `decide` returns and logs the events; None
        when there is no such method of the tenant's customer."""


class CustomerBalances(Protocol):
    """The customer credit balances (DESIGN §10.1); billing/storage/customer_balance_repository.py."""

    async def settle(self, invoice: Invoice, at: datetime) -> InvoiceSettlement:
        """Applies the balance to an opened invoice, or credits a total ≤ 0 — once per invoice: a retry
        after a crash answers what the first run wrote."""

    async def restore(self, invoice: Invoice, at: datetime) -> None:
        """A voided invoice gives back the balance it took, once."""

    async def adjust(
        self,
        owner: Owner,
        customer_id: str,
        amount_cents: int,
        currency: str,
        description: str | None,
        at: datetime,
        completion_of: Callable[[CustomerBalanceTransaction], IdempotencyCompletion] | None,
    ) -> CustomerBalanceTransaction:
        """A merchant's adjustment under the balance's lock (never below 0), with its stored answer."""

    async def list(
        self, owner: Owner, customer_id: str, *, limit: int, starting_after: str | None
    ) -> Page[CustomerBalanceTransaction]:
        """Newest first, with `total_count`."""

    async def exists(self, owner: Owner, customer_id: str, transaction_id: str) -> bool: ...
