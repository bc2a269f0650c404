"""PgPlanRepository and PgPriceRepository: plans and their immutable prices, listed newest first."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from core_server.billing.application.catalog_ports import ListQuery
from core_server.billing.domain.catalog import Plan, Price, PriceTerms
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.idempotency_store import insert_with_answer
from core_server.kernel.storage.list_pages import fetch_page_and_count

# A new plan; the idempotent answer is written in the same transaction.
_INSERT_PLAN = """
INSERT INTO plans (id, merchant_id, environment, name, description, active, metadata, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(name)s, %(description)s, %(active)s, %(metadata)s,
        %(created_at)s)
"""
_PLAN_COLUMNS = "id, merchant_id, environment, name, description, active, metadata, created_at"
# One plan of one owner: another tenant's id finds nothing.
_GET_PLAN = "SELECT " + _PLAN_COLUMNS + " FROM plans WHERE id = %s AND merchant_id = %s AND environment = %s"
# The owner's plans: a page and its count share the filter.
_PLANS_OF_OWNER = " FROM plans WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
# A page of plans, newest first; the cursor was checked to be the owner's before.
_LIST_PLANS = (
    "SELECT "
    + _PLAN_COLUMNS
    + _PLANS_OF_OWNER
    + """
  AND (%(cursor)s::text IS NULL OR seq < (
        SELECT seq FROM plans
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY seq DESC
LIMIT %(fetch)s"""
)
_COUNT_PLANS = "SELECT count(*) AS n" + _PLANS_OF_OWNER
# A new price of an existing plan of the same owner.
_INSERT_PRICE = """
INSERT INTO prices (id, merchant_id, environment, plan_id, amount_cents, currency, billing_interval,
                    interval_count, trial_period_days, active, metadata, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(plan_id)s, %(amount_cents)s, %(currency)s,
        %(interval)s, %(interval_count)s, %(trial_period_days)s, %(active)s, %(metadata)s, %(created_at)s)
"""
_PRICE_COLUMNS = (
    "id, merchant_id, environment, plan_id, amount_cents, currency, billing_interval, interval_count, "
    "trial_period_days, active, metadata, created_at"
)
# One price of one owner.
_GET_PRICE = (
    "SELECT " + _PRICE_COLUMNS + " FROM prices WHERE id = %s AND merchant_id = %s AND environment = %s"
)
# One plan's prices of the owner: a page and its count share the filter.
_PRICES_OF_PLAN = (
    " FROM prices WHERE plan_id = %(plan_id)s AND merchant_id = %(merchant_id)s"
    " AND environment = %(environment)s"
)
# A page of one plan's prices, newest first.
_LIST_PRICES = (
    "SELECT "
    + _PRICE_COLUMNS
    + _PRICES_OF_PLAN
    + """
  AND (%(cursor)s::text IS NULL OR seq < (
        SELECT seq FROM prices
        WHERE id = %(cursor)s AND plan_id = %(plan_id)s AND merchant_id = %(merchant_id)s
          AND environment = %(environment)s))
ORDER BY seq DESC
LIMIT %(fetch)s"""
)
_COUNT_PRICES = "SELECT count(*) AS n" + _PRICES_OF_PLAN
# The only column of a price that ever changes.
_SET_PRICE_ACTIVE = (
    """
UPDATE prices SET active = %(active)s, updated_at = now()
WHERE id = %(id)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
RETURNING """
    + _PRICE_COLUMNS
)


def plan_from_row(row: dict[str, Any]) -> Plan:
    return Plan(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        name=row["name"],
        description=row["description"],
        active=row["active"],
        created=row["created_at"],
        metadata=dict(row["metadata"]),
    )


def price_from_row(row: dict[str, Any]) -> Price:
    return Price(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        plan_id=row["plan_id"],
        terms=PriceTerms(
            amount_cents=row["amount_cents"],
            currency=row["currency"],
            interval=row["billing_interval"],
            interval_count=row["interval_count"],
            trial_period_days=row["trial_period_days"],
        ),
        active=row["active"],
        created=row["created_at"],
        metadata=dict(row["metadata"]),
    )


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("cursor",)


def _page_params(query: ListQuery) -> dict[str, Any]:
    return {
        "merchant_id": query.merchant_id,
        "environment": query.environment.value,
        "cursor": query.starting_after,
        "fetch": query.limit + 1,
    }


class PgPlanRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(self, plan: Plan, completion: IdempotencyCompletion | None) -> None:
        params = {
            "id": plan.id,
            "merchant_id": plan.merchant_id,
            "environment": plan.environment.value,
            "name": plan.name,
            "description": plan.description,
            "active": plan.active,
            "metadata": Jsonb(dict(plan.metadata)),
            "created_at": plan.created,
        }
        await insert_with_answer(self._pool, _INSERT_PLAN, params, plan.id, completion)

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, environment: Environment, plan_id: str) -> Plan | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET_PLAN, (plan_id, merchant_id, environment.value))).fetchone()
        return plan_from_row(row) if row else None

    @wraps_psycopg_errors
    async def list_page(self, query: ListQuery) -> Page[Plan]:
        params = _page_params(query)
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(
                conn, _LIST_PLANS, _COUNT_PLANS, params, query.limit, optional=_OPTIONAL
            )
        return Page([plan_from_row(row) for row in page.items], page.has_more, page.total_count)


class PgPriceRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(self, price: Price, completion: IdempotencyCompletion | None) -> None:
        terms = price.terms
        params = {
            "id": price.id,
            "merchant_id": price.merchant_id,
            "environment": price.environment.value,
            "plan_id": price.plan_id,
            "amount_cents": terms.amount_cents,
            "currency": terms.currency,
            "interval": terms.interval,
            "interval_count": terms.interval_count,
            "trial_period_days": terms.trial_period_days,
            "active": price.active,
            "metadata": Jsonb(dict(price.metadata)),
            "created_at": price.created,
        }
        await insert_with_answer(self._pool, _INSERT_PRICE, params, price.id, completion)

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, environment: Environment, price_id: str) -> Price | None:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_GET_PRICE, (price_id, merchant_id, environment.value))
            row = await cursor.fetchone()
        return price_from_row(row) if row else None

    @wraps_psycopg_errors
    async def list_page(self, query: ListQuery, plan_id: str) -> Page[Price]:
        params = {**_page_params(query), "plan_id": plan_id}
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(
                conn, _LIST_PRICES, _COUNT_PRICES, params, query.limit, optional=_OPTIONAL
            )
        return Page([price_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def set_active(
        self, merchant_id: str, environment: Environment, price_id: str, active: bool
    ) -> Price | None:
        params = {
            "id": price_id,
            "merchant_id": merchant_id,
            "environment": environment.value,
            "active": active,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_SET_PRICE_ACTIVE, params)).fetchone()
        return price_from_row(row) if row else None
