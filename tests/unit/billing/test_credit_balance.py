"""DESIGN §10.1: what an opened invoice does with the customer's credit balance, case by case."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core_server.billing.domain.credit_balance import (
    BalanceMove,
    BalanceTransactionType,
    InvoiceSettlement,
    check_adjustment,
    settle_invoice,
)
from core_server.kernel.domain.errors import ParameterInvalid

T = BalanceTransactionType


@pytest.mark.parametrize(
    ("balance", "total", "expected"),
    [
        # A negative total is PAID at once and credited in full.
        (0, -49_000, InvoiceSettlement(0, 0, 0, (BalanceMove(T.INVOICE_CREDIT, 49_000),))),
        (0, 0, InvoiceSettlement(0, 0, 0, ())),
        # No balance: the whole total is charged.
        (0, 2_000, InvoiceSettlement(0, 2_000, 2_000, ())),
        # The audit's downgrade: 49 000 of credit covers 2 000, keeps 47 000.
        (49_000, 2_000, InvoiceSettlement(2_000, 0, 0, (BalanceMove(T.APPLIED_TO_INVOICE, -2_000),))),
        # A credit smaller than the total: the rest is charged.
        (500, 2_000, InvoiceSettlement(500, 1_500, 1_500, (BalanceMove(T.APPLIED_TO_INVOICE, -500),))),
        # Leaves 30 due, below a charge: PAID, the 30 carried to the next invoice.
        (
            1_970,
            2_000,
            InvoiceSettlement(
                1_970,
                30,
                0,
                (BalanceMove(T.APPLIED_TO_INVOICE, -1_970), BalanceMove(T.CARRIED_AMOUNT, -30)),
            ),
        ),
        # A carried −30 is paid with the next invoice: credit_applied −30, due 2 030.
        (-30, 2_000, InvoiceSettlement(-30, 2_030, 2_030, (BalanceMove(T.APPLIED_TO_INVOICE, 30),))),
        # An invoice of 20 is below a charge by itself: carried.
        (0, 20, InvoiceSettlement(0, 20, 0, (BalanceMove(T.CARRIED_AMOUNT, -20),))),
        # Exactly 50 due is charged.
        (1_950, 2_000, InvoiceSettlement(1_950, 50, 50, (BalanceMove(T.APPLIED_TO_INVOICE, -1_950),))),
    ],
)
def test_settlement(balance: int, total: int, expected: InvoiceSettlement) -> None:
    assert settle_invoice(balance, total) == expected


@given(st.integers(-(10**8), 10**8), st.integers(-(10**8), 10**8))
def test_credit_is_conserved(balance: int, total: int) -> None:
    """Whatever the balance and total: the balance moves by exactly what the invoice did not charge."""
    settlement = settle_invoice(balance, total)
    new_balance = balance + settlement.balance_change
    if total <= 0:
        assert settlement.charge_cents == 0 and new_balance == balance - total
        return
    assert settlement.amount_due_cents == total - settlement.credit_applied_cents
    # What the customer pays now plus what they keep (or owe) is what they had, less the invoice.
    assert settlement.charge_cents - new_balance == total - balance
    assert settlement.charge_cents == 0 or settlement.charge_cents >= 50
    assert new_balance >= 0 or new_balance > -50
    assert all(move.amount_cents != 0 for move in settlement.moves)


@pytest.mark.parametrize("amount", [0, True, 1.5, "5", 100_000_000, -100_000_000])
def test_an_adjustment_must_be_a_non_zero_integer_in_range(amount: object) -> None:
    with pytest.raises(ParameterInvalid) as raised:
        check_adjustment(amount, 10**9)
    assert raised.value.param == "amount_cents"


def test_an_adjustment_never_takes_the_balance_below_zero() -> None:
    assert check_adjustment(-500, 500) == -500
    with pytest.raises(ParameterInvalid):
        check_adjustment(-501, 500)
    assert check_adjustment(99_999_999, 0) == 99_999_999
