"""A list page and its `total_count` read from PostgreSQL, written once for every list repository.

Each repository keeps its own filters, cursor and order (they are its table's); how the page and the
count are put together and read back lives here. Two forms exist on purpose:

- `counted_page_sql` + `fetch_counted_page`: the count joined to the page in ONE statement (a row of
  NULLs when the page is empty). Used where a list runs outside a transaction on a hot table (charges,
  balance transactions, payouts): one statement, not a pipeline, because a request cancelled inside a
  psycopg pipeline could hand a connection back to the pool with its implicit transaction still open.
- `fetch_page_and_count`: the page, then the count, on one connection (the billing lists).

Every page statement fetches `limit + 1` rows: the extra one only says that more follow (`Page.of`).

A list with a filter or a cursor is never prepared (`prepare_for`). The optional filters are written
`(%(x)s::text IS NULL OR col = %(x)s)`, and a prepared statement switches to a generic plan once five runs
cost about the same: a plan for every filter absent, which walks the merchant's whole listing index with
the filters as a row-by-row check. At 200,000 rows of one merchant a filtered page or count then took
50–490 ms instead of 0.02–0.2 ms (BENCHMARKS.md, "Speed, round 9"). Planned each time with its values, it
reads through the filter's index. A list without any stays prepared: its one plan fits every such call,
and planning it each time cost the unfiltered list a fifth of its throughput.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from psycopg import AsyncConnection

from core_server.kernel.application.pagination import Page

Row = dict[str, Any]


def prepare_for(params: Mapping[str, Any], optional: Collection[str]) -> bool | None:
    """psycopg's `prepare=` for a list statement: never prepared when one of its `optional` parameters (its
    filters and cursor) is given, psycopg's default otherwise (the module docstring)."""
    return False if any(params.get(name) is not None for name in optional) else None


def counted_page_sql(*, count: str, page: str, order: str, columns: str = "") -> str:
    """`count` selects `count(*) AS n`, `page` the page's rows (with its LIMIT), `order` the page's order
    on the alias `p`; `columns` are extra per-row columns computed over `p`. Each row carries
    `list_total`."""
    extra = ",\n       " + columns if columns else ""
    return (
        f"SELECT p.*, total.n AS list_total{extra}\n"
        f"FROM ({count}) total\n"
        f"LEFT JOIN LATERAL ({page}) p ON true\n"
        f"ORDER BY {order}\n"
    )


async def fetch_counted_page(
    conn: AsyncConnection[Any],
    statement: str,
    params: Mapping[str, Any],
    limit: int,
    *,
    optional: Collection[str],
) -> Page[Row]:
    """Run a `counted_page_sql` statement: the page's rows (at most `limit`) and the total count;
    `optional` names the parameters that may be absent (None): its filters and cursor."""
    prepare = prepare_for(params, optional)
    rows = await (await conn.execute(statement, params, prepare=prepare)).fetchall()
    total = rows[0]["list_total"] if rows else 0
    rows = [row for row in rows if row["id"] is not None]  # an empty page is one row of NULLs
    return Page.of(rows, limit, total)


async def fetch_page_and_count(
    conn: AsyncConnection[Any],
    page: str,
    count: str,
    params: Mapping[str, Any],
    limit: int,
    *,
    optional: Collection[str],
) -> Page[Row]:
    """The page's rows (at most `limit`) and the count of every row matching the filters; `optional` names
    the parameters that may be absent (None): its filters and cursor."""
    prepare = prepare_for(params, optional)
    rows = await (await conn.execute(page, params, prepare=prepare)).fetchall()
    counted = await (await conn.execute(count, params, prepare=prepare)).fetchone()
    total = int(counted["n"]) if counted else 0
    return Page.of(rows, limit, total_count=total)
