"""PgPaymentMethodRepository: the vault rows (display fields, sealed token and its key id) and the
customer's default, changed together with their events under the locked customer row."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from core_server.billing.application.ports import VaultDecision
from core_server.billing.domain.customer import Customer
from core_server.billing.domain.payment_method import CardSummary, PaymentMethod, PaymentMethodType
from core_server.billing.storage.customer_repository import (
    CUSTOMER_COLUMNS,
    customer_from_row,
    customer_params,
)
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.outbox import OutboxEvent
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import IdCollision
from core_server.kernel.domain.sealed import Sealed
from core_server.kernel.storage.idempotency_store import complete_in_transaction
from core_server.kernel.storage.list_pages import fetch_page_and_count
from core_server.kernel.storage.outbox import append_events

# The customer row is the lock of its vault: attaches and detaches of one customer run one at a time,
# so "the first method becomes the default" and "deleting the default clears it" hold under races.
_LOCK_CUSTOMER = (
    "SELECT "
    + CUSTOMER_COLUMNS
    + """
  FROM customers
 WHERE id = %(customer_id)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
   FOR UPDATE
"""
)
_CUSTOMER_EXISTS = """
SELECT 1 FROM customers WHERE id = %s AND merchant_id = %s AND environment = %s
"""
# The default moves only with the vault (the customer row is locked above).
_SET_DEFAULT = """
UPDATE customers SET default_payment_method = %(default_payment_method)s, updated_at = now()
 WHERE id = %(id)s
"""
_INSERT = """
INSERT INTO payment_methods (id, merchant_id, environment, customer_id, type, card, paypal_email,
                             token_sealed, key_id, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(customer_id)s, %(type)s, %(card)s, %(paypal_email)s,
        %(token_sealed)s, %(key_id)s, %(created_at)s)
"""
_COLUMNS = "id, merchant_id, environment, customer_id, type, card, paypal_email, created_at"
_LIST = (
    "SELECT "
    + _COLUMNS
    + " FROM payment_methods WHERE customer_id = %(customer_id)s"
    + " AND (%(starting_after)s::text IS NULL"
    + " OR seq < (SELECT seq FROM payment_methods WHERE id = %(starting_after)s::text))"
    + " ORDER BY seq DESC LIMIT %(fetch)s"
)
_COUNT = "SELECT count(*) AS n FROM payment_methods WHERE customer_id = %(customer_id)s"
_EXISTS = "SELECT 1 FROM payment_methods WHERE id = %s AND customer_id = %s"
# The method a renewal charges: the customer's default, with its sealed token (never shown, only opened
# to charge).
_DEFAULT_WITH_TOKEN = (
    "SELECT pm."
    + _COLUMNS.replace(", ", ", pm.")
    + ", pm.token_sealed, pm.key_id, c.email AS customer_email FROM customers c"
    + " JOIN payment_methods pm ON pm.id = c.default_payment_method AND pm.customer_id = c.id"
    + " WHERE c.id = %s AND c.merchant_id = %s AND c.environment = %s"
)
_DELETE = "DELETE FROM payment_methods WHERE id = %s AND customer_id = %s RETURNING " + _COLUMNS


def method_from_row(row: dict[str, Any]) -> PaymentMethod:
    card = row["card"]
    return PaymentMethod(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        customer_id=row["customer_id"],
        type=PaymentMethodType(row["type"]),
        card=CardSummary(**card) if card is not None else None,
        paypal_email=row["paypal_email"],
        created=row["created_at"],
    )


async def _locked_customer(
    conn: AsyncConnection[Any], merchant_id: str, environment: Environment, customer_id: str
) -> Customer | None:
    params = {"customer_id": customer_id, "merchant_id": merchant_id, "environment": environment.value}
    row = await (await conn.execute(_LOCK_CUSTOMER, params)).fetchone()
    return customer_from_row(row) if row else None


async def _save(
    conn: AsyncConnection[Any], before: Customer, after: Customer, events: Sequence[OutboxEvent]
) -> None:
    if after.default_payment_method != before.default_payment_method:
        await conn.execute(_SET_DEFAULT, customer_params(after))
    await append_events(conn, before.merchant_id, before.environment, events)


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("starting_after",)


class PgPaymentMethodRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def attach(
        self,
        method: PaymentMethod,
        sealed_token: Sealed,
        decide: VaultDecision,
        completion: IdempotencyCompletion | None,
    ) -> Customer | None:
        params = {
            "id": method.id,
            "merchant_id": method.merchant_id,
            "environment": method.environment.value,
            "customer_id": method.customer_id,
            "type": method.type.value,
            "card": Jsonb(asdict(method.card)) if method.card is not None else None,
            "paypal_email": method.paypal_email,
            "token_sealed": sealed_token.ciphertext,
            "key_id": sealed_token.key_id,
            "created_at": method.created,
        }
        try:
            async with self._pool.connection() as conn, conn.transaction():
                customer = await _locked_customer(
                    conn, method.merchant_id, method.environment, method.customer_id
                )
                if customer is None:
                    return None
                await conn.execute(_INSERT, params)
                after, events = decide(customer)
                await _save(conn, customer, after, events)
                if completion is not None:
                    await complete_in_transaction(conn, completion)
                return after
        except psycopg.errors.UniqueViolation as exc:
            raise IdCollision(method.id) from exc

    @wraps_psycopg_errors
    async def customer_exists(self, merchant_id: str, environment: Environment, customer_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_CUSTOMER_EXISTS, (customer_id, merchant_id, environment.value))
            return await cursor.fetchone() is not None

    @wraps_psycopg_errors
    async def list(
        self, customer_id: str, *, limit: int, starting_after: str | None, tenant: str = ""
    ) -> Page[PaymentMethod]:
        params = {"customer_id": customer_id, "starting_after": starting_after, "fetch": limit + 1}
        async with gate_for(self._pool).slot(tenant), self._pool.connection() as conn:
            page = await fetch_page_and_count(conn, _LIST, _COUNT, params, limit, optional=_OPTIONAL)
        return Page([method_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    @wraps_psycopg_errors
    async def default_with_token(
        self, merchant_id: str, environment: Environment, customer_id: str
    ) -> tuple[PaymentMethod, Sealed, str] | None:
        async with self._pool.connection() as conn:
            row = await (
                await conn.execute(_DEFAULT_WITH_TOKEN, (customer_id, merchant_id, environment.value))
            ).fetchone()
        if row is None:
            return None
        return method_from_row(row), Sealed(row["key_id"], bytes(row["token_sealed"])), row["customer_email"]

    async def exists(self, customer_id: str, payment_method_id: str) -> bool:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_EXISTS, (payment_method_id, customer_id))
            return await cursor.fetchone() is not None

    @wraps_psycopg_errors
    async def detach(
        self,
        merchant_id: str,
        environment: Environment,
        customer_id: str,
        payment_method_id: str,
        decide: Callable[[Customer, PaymentMethod], tuple[Customer, Sequence[OutboxEvent]]],
    ) -> PaymentMethod | None:
        async with self._pool.connection() as conn, conn.transaction():
            customer = await _locked_customer(conn, merchant_id, environment, customer_id)
            if customer is None:
                return None
            row = await (await conn.execute(_DELETE, (payment_method_id, customer_id))).fetchone()
            if row is None:
                return None
            method = method_from_row(row)
            after, events = decide(customer, method)
            await _save(conn, customer, after, events)
            return method
