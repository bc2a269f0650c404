"""Customer use cases: create, read, list and change, each change logged as an event in its transaction.

A new default payment method is told to a listener after the write (DESIGN §9: it retries the open
invoice of a PAST_DUE or UNPAID subscription at once). Billing sits above customers, so it registers
itself with `on_default_changed` instead of being called by name.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime

from core_server.billing.application.customer_view import customer_view
from core_server.billing.application.ports import (
    CustomerRepository,
    EmailTaken,
    UnknownPaymentMethod,
)
from core_server.billing.domain.customer import (
    CUSTOMER_ID_RE,
    Customer,
    CustomerChanges,
    apply_changes,
    validate_address,
    validate_customer_email,
    validate_customer_metadata,
    validate_name,
)
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.outbox import OutboxEvent, render_events
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import NotFound, ParameterInvalid
from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates

logger = logging.getLogger(__name__)

CUSTOMER_CREATED = "customer.created"
CUSTOMER_UPDATED = "customer.updated"

DefaultListener = Callable[[Owner, str], Awaitable[None]]
"""Called with (owner, customer_id) after a write made a (new) payment method the customer's default."""


async def tell_default_changed(listener: DefaultListener | None, owner: Owner, customer_id: str) -> None:
    """The merchant's change is written and answered whatever the listener does: a failed retry is
    logged, and the billing run's dunning schedule tries the invoice again later."""
    if listener is None:
        return
    try:
        await listener(owner, customer_id)
    except Exception:  # the write succeeded; the retry is a best effort on top of it
        logger.warning("retry on a new default payment method failed for %s", customer_id, exc_info=True)


def customer_not_found(customer_id: str) -> NotFound:
    """One answer for unknown, malformed and other tenants' customers."""
    return NotFound(f"No such customer: '{customer_id[:100]}'", param="id")


def email_taken() -> ParameterInvalid:
    return ParameterInvalid("A customer with this email already exists.", param="email")


def customer_events(event_type: str, customer: Customer, at: datetime) -> list[OutboxEvent]:
    return render_events(
        [DomainEvent(event_type, customer.id, at)], customer_view(customer), livemode=customer.livemode
    )


class CustomerService:
    def __init__(self, customers: CustomerRepository, clocks: Clocks) -> None:
        self._customers = customers
        self._clocks = clocks
        self._default_listener: DefaultListener | None = None

    def on_default_changed(self, listener: DefaultListener | None) -> None:
        """Registers who hears of a new default payment method (set once, in bootstrap)."""
        self._default_listener = listener

    async def _now(self, owner: Owner) -> datetime:
        return await merchant_now(self._clocks, owner, whole_seconds=True)

    async def create(
        self,
        owner: Owner,
        *,
        email: str,
        name: str | None,
        address: Mapping[str, str | None] | None,
        metadata: Mapping[str, str],
        claim: Claim[Customer] | None = None,
    ) -> Customer:
        checked_email = validate_customer_email(email)
        checked_name = validate_name(name)
        checked_address = validate_address(address) if address is not None else None
        checked_metadata = validate_customer_metadata(metadata)
        now = await self._now(owner)
        for customer_id in id_candidates("cus_", 24):
            customer = Customer(
                id=customer_id,
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                email=checked_email,
                name=checked_name,
                address=checked_address,
                default_payment_method=None,
                metadata=checked_metadata,
                created=now,
            )
            try:
                await self._customers.insert(
                    customer,
                    customer_events(CUSTOMER_CREATED, customer, now),
                    claim.completion(customer) if claim is not None else None,
                )
            except IdCollision:
                continue
            except EmailTaken as exc:
                raise email_taken() from exc
            return customer
        raise IdSpaceExhausted("ten customer id collisions in a row")

    async def get(self, owner: Owner, customer_id: str) -> Customer:
        found = None
        if CUSTOMER_ID_RE.match(customer_id):
            found = await self._customers.get(owner.merchant_id, owner.environment, customer_id)
        if found is None:
            raise customer_not_found(customer_id)
        return found

    async def list(
        self, owner: Owner, *, email: str | None, limit: int, starting_after: str | None
    ) -> Page[Customer]:
        limit = page_limit(limit)

        async def exists(candidate: str) -> bool:
            return bool(CUSTOMER_ID_RE.match(candidate)) and await self._customers.exists(
                owner.merchant_id, owner.environment, candidate
            )

        await require_cursor(starting_after, "customer", exists)
        return await self._customers.list(
            owner.merchant_id,
            owner.environment,
            email=email.strip() if email is not None else None,
            limit=limit,
            starting_after=starting_after,
        )

    async def update(
        self,
        owner: Owner,
        customer_id: str,
        *,
        email: str | None = None,
        name: str | None = None,
        address: Mapping[str, str | None] | None = None,
        metadata: Mapping[str, str] | None = None,
        default_payment_method: str | None = None,
    ) -> Customer:
        await self.get(owner, customer_id)
        if name is not None and name != "":
            validate_name(name)
        changes = CustomerChanges(
            email=validate_customer_email(email) if email is not None else None,
            name=name,
            address=validate_address(address) if address is not None else None,
            metadata=dict(metadata or {}),
            default_payment_method=default_payment_method,
        )
        now = await self._now(owner)
        previous_default: list[str | None] = []

        def mutate(current: Customer) -> tuple[Customer, Sequence[OutboxEvent]]:
            previous_default[:] = [current.default_payment_method]  # the last call is the one written
            changed = apply_changes(current, changes)
            if changed == current:
                return current, []  # nothing changed, nothing to tell
            return changed, customer_events(CUSTOMER_UPDATED, changed, now)

        try:
            updated = await self._customers.update(owner.merchant_id, owner.environment, customer_id, mutate)
        except EmailTaken as exc:
            raise email_taken() from exc
        except UnknownPaymentMethod as exc:
            raise ParameterInvalid(
                f"default_payment_method names no payment method of this customer: "
                f"'{(default_payment_method or '')[:100]}'.",
                param="default_payment_method",
            ) from exc
        if updated is None:
            raise customer_not_found(customer_id)
        new_default = updated.default_payment_method
        if new_default is not None and previous_default != [new_default]:
            await tell_default_changed(self._default_listener, owner, customer_id)
        return updated
