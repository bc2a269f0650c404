"""Lists read through the index of the filter a request gives, however long the merchant's history.

Two ways a filtered list used to read a merchant's whole history (BENCHMARKS.md, "Speed, round 9"):
- a list statement writes its optional filters `(%(x)s IS NULL OR col = %(x)s)`; prepared (psycopg
  prepares what a connection runs five times), PostgreSQL switches it to a generic plan, made for every
  filter absent, that walks the merchant's listing index and checks each row: 50–490 ms at 200,000 rows.
  A list with a filter is now planned with its values each time; one without stays prepared;
- the payments search by e-mail read its page through the listing index, newest first, checking each
  row's e-mail (126–209 ms for 6 charges among 200,000), until the e-mail index carried the page's order.
"""

from __future__ import annotations

import psycopg
import pytest

from core_server.db.pool import DbPool
from core_server.kernel.storage.list_pages import fetch_counted_page
from core_server.payments.storage.charge_repository import _LIST, _OPTIONAL
from tests.support.query_plans import analyzed_plan, fill_and_analyze, rows_read

pytestmark = pytest.mark.integration

MERCHANT = "acct_lists"
CHARGES = 6_000
EACH_EMAIL = 6

# Every e-mail has EACH_EMAIL charges spread over the merchant's history, newest last.
_FILL = (
    """
INSERT INTO charges (id, merchant_id, environment, amount, currency, status, return_url, customer_email,
                     payment_method, expires_at, created_at)
SELECT 'ch_list' || g, %(merchant)s, 'live', 1000, 'usd', 'captured', 'https://shop.example/return',
       'buyer' || (g %% (%(charges)s / %(each)s)) || '@shop.example', 'card',
       now() - g * interval '1 minute' + interval '1 day', now() - g * interval '1 minute'
  FROM generate_series(1, %(charges)s) g""",
)


def _params(**filters: object) -> dict[str, object]:
    return {
        "merchant_id": MERCHANT,
        "environment": "live",
        "status": None,
        "seen_at": None,
        "hold_start": None,
        "created_after": None,
        "created_before": None,
        "customer_email": None,
        "invoice_id": None,
        "cursor": None,
        "limit": 11,
        **filters,
    }


async def test_a_search_by_email_reads_that_emails_charges_and_lists_are_never_prepared(
    isolated_database_url: str, isolated_pool: DbPool
) -> None:
    # isolated_pool: this module's own database, migrated (and emptied afterwards).
    fill = {"merchant": MERCHANT, "charges": CHARGES, "each": EACH_EMAIL}
    with psycopg.connect(isolated_database_url, autocommit=True) as conn:
        fill_and_analyze(conn, _FILL, fill, ["charges"])
        plan = analyzed_plan(conn, _LIST, _params(customer_email="Buyer7@shop.example"))
    assert plan["Actual Rows"] == EACH_EMAIL, plan
    # The page and the count each read the e-mail's rows, no other charge of the merchant.
    assert rows_read(plan, "charges") <= 2 * EACH_EMAIL, plan

    async with isolated_pool.connection() as conn:
        for n in range(8):  # past psycopg's prepare threshold (5)
            params = _params(customer_email=f"buyer{n}@shop.example")
            page = await fetch_counted_page(conn, _LIST, params, 10, optional=_OPTIONAL)
            assert page.total_count == EACH_EMAIL
        filtered = await (await conn.execute(_PREPARED)).fetchone()
        for _ in range(8):
            page = await fetch_counted_page(conn, _LIST, _params(), 10, optional=_OPTIONAL)
            assert page.total_count == CHARGES
        unfiltered = await (await conn.execute(_PREPARED)).fetchone()
    assert filtered is not None and filtered["n"] == 0  # planned with its values every time
    assert unfiltered is not None and unfiltered["n"] == 1  # one plan fits every unfiltered call


_PREPARED = "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%%list_total%%'"
