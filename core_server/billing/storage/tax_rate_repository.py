"""PgTaxRateRepository: tax rates per merchant and environment, listed newest first."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb

from core_server.billing.application.catalog_ports import ListQuery, TaxRateChanges
from core_server.billing.domain.tax import TaxRate
from core_server.db.errors import wraps_psycopg_errors
from core_server.db.pool import DbPool
from core_server.db.scan_gate import gate_for
from core_server.kernel.application.pagination import Page
from core_server.kernel.application.ports import IdempotencyCompletion
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.idempotency_store import insert_with_answer
from core_server.kernel.storage.list_pages import fetch_page_and_count

# A new rate; the idempotent answer is written in the same transaction.
_INSERT = """
INSERT INTO tax_rates (id, merchant_id, environment, percentage, display_name, jurisdiction, inclusive,
                       country, state, active, metadata, created_at)
VALUES (%(id)s, %(merchant_id)s, %(environment)s, %(percentage)s, %(display_name)s, %(jurisdiction)s,
        %(inclusive)s, %(country)s, %(state)s, %(active)s, %(metadata)s, %(created_at)s)
"""
_COLUMNS = (
    "id, merchant_id, environment, percentage, display_name, jurisdiction, inclusive, country, state, "
    "active, metadata, created_at"
)
# One rate of one owner: another tenant's id finds nothing.
_GET = "SELECT " + _COLUMNS + " FROM tax_rates WHERE id = %s AND merchant_id = %s AND environment = %s"
# The owner's rates: a page and its count share the filter.
_OF_OWNER = " FROM tax_rates WHERE merchant_id = %(merchant_id)s AND environment = %(environment)s"
# A page, newest first; the cursor was checked to be the owner's before.
_LIST = (
    "SELECT "
    + _COLUMNS
    + _OF_OWNER
    + """
  AND (%(cursor)s::text IS NULL OR seq < (
        SELECT seq FROM tax_rates
        WHERE id = %(cursor)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s))
ORDER BY seq DESC
LIMIT %(fetch)s"""
)
_COUNT = "SELECT count(*) AS n" + _OF_OWNER
# Address resolution's candidates: active rates of one country, oldest first (a stable winner).
_ACTIVE_FOR_COUNTRY = (
    "SELECT "
    + _COLUMNS
    + " FROM tax_rates WHERE merchant_id = %s AND environment = %s AND country = %s AND active ORDER BY seq"
)
# The two changeable fields, each kept when not named.
_UPDATE = (
    """
UPDATE tax_rates SET
    display_name = coalesce(%(display_name)s, display_name),
    active = coalesce(%(active)s, active),
    updated_at = now()
WHERE id = %(id)s AND merchant_id = %(merchant_id)s AND environment = %(environment)s
RETURNING """
    + _COLUMNS
)


def tax_rate_from_row(row: dict[str, Any]) -> TaxRate:
    return TaxRate(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        percentage=Decimal(row["percentage"]),
        display_name=row["display_name"],
        jurisdiction=row["jurisdiction"],
        inclusive=row["inclusive"],
        country=row["country"],
        state=row["state"],
        active=row["active"],
        created=row["created_at"],
        metadata=dict(row["metadata"]),
    )


# The list's parameters that may be absent (None): a call with one is planned with its values
# (kernel/storage/list_pages.py, prepare_for).
_OPTIONAL = ("cursor",)


class PgTaxRateRepository:
    def __init__(self, pool: DbPool) -> None:
        self._pool = pool

    @wraps_psycopg_errors
    async def insert(self, rate: TaxRate, completion: IdempotencyCompletion | None) -> None:
        params = {
            "id": rate.id,
            "merchant_id": rate.merchant_id,
            "environment": rate.environment.value,
            "percentage": rate.percentage,
            "display_name": rate.display_name,
            "jurisdiction": rate.jurisdiction,
            "inclusive": rate.inclusive,
            "country": rate.country,
            "state": rate.state,
            "active": rate.active,
            "metadata": Jsonb(dict(rate.metadata)),
            "created_at": rate.created,
        }
        await insert_with_answer(self._pool, _INSERT, params, rate.id, completion)

    @wraps_psycopg_errors
    async def get(self, merchant_id: str, environment: Environment, rate_id: str) -> TaxRate | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_GET, (rate_id, merchant_id, environment.value))).fetchone()
        return tax_rate_from_row(row) if row else None

    @wraps_psycopg_errors
    async def list_page(self, query: ListQuery) -> Page[TaxRate]:
        params = {
            "merchant_id": query.merchant_id,
            "environment": query.environment.value,
            "cursor": query.starting_after,
            "fetch": query.limit + 1,
        }
        async with gate_for(self._pool).slot(query.merchant_id), self._pool.connection() as conn:
            page = await fetch_page_and_count(conn, _LIST, _COUNT, params, query.limit, optional=_OPTIONAL)
        return Page([tax_rate_from_row(row) for row in page.items], page.has_more, page.total_count)

    @wraps_psycopg_errors
    async def active_for_country(
        self, merchant_id: str, environment: Environment, country: str
    ) -> list[TaxRate]:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_ACTIVE_FOR_COUNTRY, (merchant_id, environment.value, country))
            rows = await cursor.fetchall()
        return [tax_rate_from_row(row) for row in rows]

    @wraps_psycopg_errors
    async def update(
        self, merchant_id: str, environment: Environment, rate_id: str, changes: TaxRateChanges
    ) -> TaxRate | None:
        params = {
            "id": rate_id,
            "merchant_id": merchant_id,
            "environment": environment.value,
            "display_name": changes.display_name,
            "active": changes.active,
        }
        async with self._pool.connection() as conn:
            row = await (await conn.execute(_UPDATE, params)).fetchone()
        return tax_rate_from_row(row) if row else None
