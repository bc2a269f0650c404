"""The ledger rows ride in the statement of their movement: the charge's fenced save names the ledger CTE
exactly on the turns that moved money, gated by the fenced row; the subscription's save books only the
invoices it wrote itself."""

from __future__ import annotations

from core_server.billing.storage.subscription_writes import SAVE_SUBSCRIPTION
from core_server.kernel.application.ports import TurnWrite
from core_server.kernel.storage.ledger_rows import LEDGER_ROWS_CTE, ledger_rows_cte
from core_server.payments.storage.charge_writes import save_statement
from tests.support.charge_states import NOW, authorized


def test_a_capture_turn_writes_its_row_in_the_fenced_save() -> None:
    charge = authorized(10_000)
    charge.capture(None, NOW)
    text, params = save_statement(charge, 3, TurnWrite())
    assert "saved_ledger AS (" in text and "FROM written_row," in text
    assert (params["txn_types"], params["txn_amounts"], params["txn_nets"]) == (["charge"], [10_000], [9_680])
    assert params["txn_merchant_id"] == charge.merchant_id and params["txn_environment"] == "test"


def test_a_turn_without_money_names_no_ledger_cte() -> None:
    charge = authorized(10_000)
    charge.void(NOW)
    text, params = save_statement(charge, 3, TurnWrite())
    assert "balance_transactions" not in text and "txn_types" not in params


def test_the_rows_are_gated_and_written_once_per_source() -> None:
    assert "FROM written_row," in LEDGER_ROWS_CTE
    assert "ON CONFLICT (type, source) WHERE type <> 'conversion' DO NOTHING" in LEDGER_ROWS_CTE
    gated = ledger_rows_cte("saved_ledger", gate="saved_invoices", by_source=True)
    assert "JOIN saved_invoices ON saved_invoices.id = t.source" in gated


def test_the_subscription_save_books_paid_invoices_with_them() -> None:
    text = SAVE_SUBSCRIPTION.text(frozenset({"invoices", "ledger"}))
    assert text.index("saved_invoices AS (") < text.index("saved_ledger AS (")
    assert "JOIN saved_invoices ON saved_invoices.id = t.source" in text
