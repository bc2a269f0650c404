"""The customer credit balance (DESIGN §10.1): what an opened invoice takes from it or gives to it.

A customer holds one balance per currency: positive is credit the customer holds (a downgrade's unused
time, a merchant's goodwill adjustment), negative a small amount carried to their next invoice. Every
change is a customer balance transaction with a signed amount (+ adds credit, − uses it), so the balance
is always the sum of its transactions and no credit is ever lost or spent twice:

- total ≤ 0: the invoice is PAID at once and −total is credited (`invoice_credit`);
- total > 0: a credit is applied up to the total, a carried amount in full (`applied_to_invoice`); what
  is left is due. Due 0 is PAID with no charge; due 1–49 (below a charge's minimum) is PAID with no
  charge and carried to the next invoice (`carried_amount`); otherwise the due is charged.

Pure: the balance is read and written by billing/storage/customer_balance_repository.py, which calls
`settle_invoice` inside the transaction that holds the balance's row lock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.money import MAX_AMOUNT, MIN_AMOUNT

BALANCE_TRANSACTION_ID_PREFIX = "cbtxn_"
BALANCE_TRANSACTION_ID_RE = re.compile(r"^cbtxn_[A-Za-z0-9]{24}$")
MAX_DESCRIPTION = 350


class BalanceTransactionType(StrEnum):
    INVOICE_CREDIT = "invoice_credit"
    APPLIED_TO_INVOICE = "applied_to_invoice"
    CARRIED_AMOUNT = "carried_amount"
    ADJUSTMENT = "adjustment"


@dataclass(frozen=True, slots=True)
class BalanceMove:
    """One customer balance transaction to write: its type and signed amount."""

    type: BalanceTransactionType
    amount_cents: int


@dataclass(frozen=True, slots=True)
class InvoiceSettlement:
    """What an opened invoice does with the balance.

    `credit_applied_cents` is positive for a credit used, negative for a carried amount paid with this
    invoice; `amount_due_cents = total − credit_applied`; `charge_cents` is what a payment method is
    charged (the due, or 0 when the invoice is paid without a charge)."""

    credit_applied_cents: int
    amount_due_cents: int
    charge_cents: int
    moves: tuple[BalanceMove, ...]

    @property
    def balance_change(self) -> int:
        return sum(move.amount_cents for move in self.moves)


def settle_invoice(balance_cents: int, total_cents: int) -> InvoiceSettlement:
    """DESIGN §10.1 for an invoice of `total_cents` against a balance of `balance_cents` (same currency)."""
    if total_cents <= 0:
        moves = (BalanceMove(BalanceTransactionType.INVOICE_CREDIT, -total_cents),) if total_cents else ()
        return InvoiceSettlement(0, 0, 0, moves)
    applied = min(balance_cents, total_cents) if balance_cents > 0 else balance_cents
    moves_list = [BalanceMove(BalanceTransactionType.APPLIED_TO_INVOICE, -applied)] if applied else []
    due = total_cents - applied
    charge = due
    if 0 < due < MIN_AMOUNT:
        moves_list.append(BalanceMove(BalanceTransactionType.CARRIED_AMOUNT, -due))
        charge = 0
    return InvoiceSettlement(applied, due, charge, tuple(moves_list))


def check_adjustment_amount(amount_cents: object) -> int:
    """A merchant's adjustment amount: a non-zero integer, |amount| ≤ 99,999,999."""
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents == 0:
        raise ParameterInvalid("amount_cents must be a non-zero integer.", param="amount_cents")
    if abs(amount_cents) > MAX_AMOUNT:
        raise ParameterInvalid(f"amount_cents must be at most {MAX_AMOUNT} in size.", param="amount_cents")
    return amount_cents


def check_adjustment(amount_cents: object, balance_cents: int) -> int:
    """The amount's shape, and never taking the balance (read under its lock) below 0."""
    amount_cents = check_adjustment_amount(amount_cents)
    if balance_cents + amount_cents < 0:
        raise ParameterInvalid(
            f"The adjustment would take the balance below 0 (it is {balance_cents}).", param="amount_cents"
        )
    return amount_cents


def check_description(description: str | None) -> str | None:
    if description is None or description.strip() == "":
        return None
    if len(description) > MAX_DESCRIPTION:
        raise ParameterInvalid(
            f"description must be at most {MAX_DESCRIPTION} characters.", param="description"
        )
    return description.strip()


@dataclass(frozen=True, slots=True)
class CustomerBalanceTransaction:
    """One change of a customer's balance (DESIGN §10.1 `customer_balance_transaction`)."""

    id: str
    merchant_id: str
    livemode: bool
    customer_id: str
    type: BalanceTransactionType
    amount_cents: int
    currency: str
    invoice_id: str | None
    description: str | None
    ending_balance_cents: int
    created: datetime
