"""The insert of balance transactions, as a child CTE of the statement that moves the money.

The table is shared like the outbox's: payments (a charge's fenced save) and billing (a subscription's
save of a PAID invoice) each add this CTE to their own one statement, so a row lands exactly when its
movement does — a stale fence writes neither — and no later job can miss one. The contexts may not import
each other's storage (pyproject's import contracts), so the text lives here in the kernel, beside the
outbox, and knows no context: the rows come as arrays (kernel/domain/ledger.py's LedgerEntry), and the
caller names what gates them — `written_row` (the aggregate's write happened), or a CTE of written rows
whose `id` is each entry's `source` (billing: only an invoice this statement itself wrote is booked).
The ledger context reads the table (balances, lists, reconciliation) and never writes these rows.

One row per (type, source) by a unique index: a save that hands the same movement over again (each later
save of a subscription hands over its paid invoices) writes nothing more. Ids are `txn_` + 24
alphanumerics from PostgreSQL's CSPRNG, made here like the outbox's delivery ids (no collision retry:
~136 random bits).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import LedgerEntry

_ROWS = """unnest(%(txn_types)s::text[], %(txn_sources)s::text[], %(txn_amounts)s::bigint[],
                %(txn_fees)s::bigint[], %(txn_taxes)s::bigint[], %(txn_nets)s::bigint[],
                %(txn_currencies)s::text[], %(txn_available_on)s::timestamptz[],
                %(txn_created_at)s::timestamptz[])
           AS t(type, source, amount, fee, tax, net, currency, available_on, created_at)"""

_INSERT = """
{name} AS (
  INSERT INTO balance_transactions (id, merchant_id, environment, type, source, amount, fee, tax, net,
                                    currency, available_on, created_at)
  SELECT 'txn_' || left(translate(encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()),
                                         'base64'), '+/=', 'pQz'), 24),
         %(txn_merchant_id)s, %(txn_environment)s, t.type, t.source, t.amount, t.fee, t.tax, t.net,
         t.currency, t.available_on, t.created_at
    {rows}
  ON CONFLICT (type, source) WHERE type <> 'conversion' DO NOTHING
  RETURNING 1
)"""


def ledger_rows_cte(name: str, *, gate: str = "written_row", by_source: bool = False) -> str:
    """The CTE `name` inserting the `txn_` arrays' rows when `gate` has a row (`by_source`: the gate row
    whose `id` is the entry's source). Built from constants at import time, never from values."""
    if by_source:
        rows = "FROM " + _ROWS + "\n    JOIN " + gate + " ON " + gate + ".id = t.source"
    else:
        rows = "FROM " + gate + ",\n         " + _ROWS
    return _INSERT.replace("{name}", name).replace("{rows}", rows)


LEDGER_ROWS_CTE = ledger_rows_cte("saved_ledger")
"""The common case: the turn's entries, written only if the aggregate's row was (a fenced save's child)."""


def ledger_params(
    merchant_id: str, environment: Environment, entries: Sequence[LedgerEntry]
) -> dict[str, Any]:
    """The parameters of a ledger_rows_cte (prefixed `txn_`, beside the aggregate's own)."""
    return {
        "txn_merchant_id": merchant_id,
        "txn_environment": environment.value,
        "txn_types": [e.type.value for e in entries],
        "txn_sources": [e.source for e in entries],
        "txn_amounts": [e.amount for e in entries],
        "txn_fees": [e.fee for e in entries],
        "txn_taxes": [e.tax for e in entries],
        "txn_nets": [e.net for e in entries],
        "txn_currencies": [e.currency for e in entries],
        "txn_available_on": [e.available_on for e in entries],
        "txn_created_at": [e.created for e in entries],
    }
