"""PgCustomerRepository: customers, their unique e-mail per tenant, and their events in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from core_server.billing.application.ports import CustomerMutation, EmailTaken, UnknownPaymentMethod
from core_server.billing.domain.customer import Address, Customer
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.storage.idempotency_store import complete_in_transaction
from core_server.kernel.storage.list_pages import fetch_page_and_count
from core_server.kernel.storage.outbox import append_events

EMAIL_INDEX = "customers_email_unique"
"""The unique index of migration 0008 that decides concurrent creates with one e-mail."""

# The credit balance rides along every read (DESIGN §10.1): its non-zero currencies, as one object.
CUSTOMER_COLUMNS = (
    "id, merchant_id, environment, email, name, address, default_payment_method, metadata, created_at,"
    " (SELECT coalesce(jsonb_object_agg(b.currency, b.balance_cents), '{}'::jsonb)"
    "    FROM customer_balances b WHERE b.customer_id = customers.id AND b.balance_cents <> 0)"
    " AS credit_balance"
)
_INSERT = """
INSERT INTO customers (id, merchant_id, environment, email, name, address, default_payment_method,
                       metadata, created_at, updated_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(email)s, %(name)s, %(address)s,
        %(default_payment_method)s, %(metadata)s, %(created_at)s, %(created_at)s)
"""
_TENANT = " WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
_GET = "SELECT " + CUSTOMER_COLUMNS + " FROM customers" + _TENANT + " AND id = %(id)s"
_EXISTS = "SELECT 1 FROM customers" + _TENANT + " AND id = %(id)s"
# The filter is the case-insensitive e-mail (the unique index's own expression); a null filter is none.
_FILTER = " AND (%(email)s::text IS NULL OR lower(email) = lower(%(email)s::text))"
# Newest first; the cursor row is the caller's own (checked before), so its seq bounds the page.
_LIST = (
    "SELECT "
    + CUSTOMER_COLUMNS
    + " FROM customers"
    + _TENANT
    + _FILTER
    + " AND (%(starting_after)s::text IS NULL"
    + " OR seq < (SELECT seq FROM customers WHERE id = %(starting_after)s::text))"
    + " ORDER BY seq DESC LIMIT %(fetch)s"
)
_COUNT = "SELECT count(*) AS n FROM customers" + _TENANT + _FILTER
_LOCK = _GET + " FOR UPDATE"
_UPDATE = """
UPDATE customers SET email = %(email)s, name = %(name)s, address = %(address)s,
       default_payment_method = %(default_payment_method)s, metadata = %(metadata)s, updated_at = now()
 WHERE id = %(id)s
"""
# A new default must be one of the customer's vaulted methods (read in the write transaction).
_OWNS_METHOD = "SELECT 1 FROM payment_methods WHERE id = %s AND customer_id = %s"


def customer_from_row(row: dict[str, Any]) -> Customer:
    address = row["address"]
    return Customer(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        email=row["email"],
        name=row["name"],
        address=Address(**address) if address is not None else None,
        default_payment_method=row["default_payment_method"],
        metadata=dict(row["metadata"]),
        created=row["created_at"],
        credit_balance={currency: int(cents) for currency, cents in row["credit_balance"].items()},
    )


def customer_params(customer: Customer) -> dict[str, Any]:
    return {
        "id": customer.id,
        "merchant_id": customer.merchant_id,
        "environment": customer.environment.value,
        "email": customer.email,
        "name": customer.name,
        "address": Jsonb(asdict(customer.address)) if customer.address is not None else None,
        "default_payment_method": customer.default_payment_method,
        "metadata": Jsonb(dict(customer.metadata)),
        "created_at": customer.created,
    }


def _tenant(merchant_id: str, environment: Environment, customer_id: str) -> dict[str, Any]:
    return {"merchant_id": merchant_id, "environment": environment.value, "id": customer_id}


def _is_email_clash(exc: psycopg.errors.UniqueViolation) -> bool:
    return exc.diag.constraint_name == EMAIL_INDEX


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("email", "starting_after")


class PgCustomerRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(
        self,
        customer: Customer,
        events: Sequence[OutboxEvent],
        completion: IdempotencyCompletion | None,
    ) -> None:
        try:
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute(_INSERT, customer_params(customer))
                await append_events(conn, customer.merchant_id, customer.environment, events)
                if completion is not None:
                    await complete_in_transaction(conn, completion)
        except psycopg.errors.UniqueViolation as exc:
            if _is_email_clash(exc):
                raise EmailTaken(customer.email) from exc
            raise IdCollision(customer.id) from exc

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, environment: Environment, customer_id: str) -> Customer | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_GET, _tenant(merchant_id, environment, customer_id))
            row = await cursor.fetchone()
        return customer_from_row(row) if row else None

    @wraps_psycopg_errors
    async def exists(self, merchant_id: str, environment: Environment, customer_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_EXISTS, _tenant(merchant_id, environment, customer_id))
            return await cursor.fetchone() is not None

    @wraps_psycopg_errors
    async def list(
        self,
        merchant_id: str,
        environment: Environment,
        *,
        email: str | None,
        limit: int,
        starting_after: str | None,
    ) -> Page[Customer]:
        params = {
            "merchant_id": merchant_id,
            "environment": environment.value,
            "email": email,
            "starting_after": starting_after,
            "fetch": limit + 1,
        }
        async with gate_for(self._pool).slot(merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(conn, _LIST, _COUNT, params, limit, optional=_OPTIONAL)
        return Page([customer_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def update(
        self, merchant_id: str, environment: Environment, customer_id: str, mutate: CustomerMutation
    ) -> Customer | None:
        try:
            async with self._pool.connection() as conn, conn.transaction():
                cursor = await conn.execute(_LOCK, _tenant(merchant_id, environment, customer_id))
                row = await cursor.fetchone()
                if row is None:
                    return None
                current = customer_from_row(row)
                changed, events = mutate(current)
                if changed == current:
                    return current
                default = changed.default_payment_method
                if default is not None and default != current.default_payment_method:
                    owned = await conn.execute(_OWNS_METHOD, (default, customer_id))
                    if await owned.fetchone() is None:
                        raise UnknownPaymentMethod(default)
                await conn.execute(_UPDATE, customer_params(changed))
                await append_events(conn, merchant_id, environment, events)
                return changed
        except psycopg.errors.UniqueViolation as exc:
            if _is_email_clash(exc):
                raise EmailTaken(customer_id) from exc
            raise
