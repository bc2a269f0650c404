"""The balance per currency and availability on read; reconciliation findings (DESIGN §9, issue 16)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core_server.ledger.domain.balance import (
    Balance,
    CurrencyAmount,
    CurrencyTotals,
    TransactionStatus,
    parse_type,
    status_at,
)
from core_server.ledger.domain.reconciliation import BalanceLine, Finding, FindingKind, ReconciliationReport

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_a_row_is_available_from_its_available_on_on() -> None:
    assert status_at(NOW, NOW) is TransactionStatus.AVAILABLE
    assert status_at(NOW - timedelta(seconds=1), NOW) is TransactionStatus.AVAILABLE
    assert status_at(NOW + timedelta(seconds=1), NOW) is TransactionStatus.PENDING


def test_the_balance_lists_every_currency_in_both_lists_by_code() -> None:
    balance = Balance.of([CurrencyTotals("usd", 100, 0), CurrencyTotals("eur", 0, -50)], livemode=False)
    assert balance.available == (CurrencyAmount(0, "eur"), CurrencyAmount(100, "usd"))
    assert balance.pending == (CurrencyAmount(-50, "eur"), CurrencyAmount(0, "usd"))
    assert Balance.of([], livemode=True) == Balance((), (), True)


def test_type_filter_values() -> None:
    assert parse_type("charge") is not None and parse_type("dispute_won") is not None
    assert parse_type(None) is None and parse_type("") is None and parse_type("bogus") is None


def _line(available: int, pending: int, rows_net: int) -> BalanceLine:
    return BalanceLine("acct_1", "test", "usd", available, pending, rows_net, 3)


def test_a_balanced_ledger_is_ok() -> None:
    assert ReconciliationReport.of([_line(10, 5, 15)], []).ok


def test_a_balance_other_than_its_rows_is_a_finding() -> None:
    report = ReconciliationReport.of([_line(10, 5, 16)], [])
    assert not report.ok
    assert [f.kind for f in report.findings] == [FindingKind.BALANCE_MISMATCH]


def test_a_missing_row_is_a_finding() -> None:
    missing = Finding(
        FindingKind.MISSING_ROW, "acct_1", "test", "usd", "ch_1", "no charge balance transaction"
    )
    report = ReconciliationReport.of([_line(0, 0, 0)], [missing])
    assert report.findings == (missing,)
