"""Balance transactions as the contexts that move money write them (DESIGN §9).

The shared kernel holds only the row every context appends — payments for captures, refunds and
disputes, billing for paid invoices, the ledger for payouts — so none of them imports another: each
turns its own transition into LedgerEntry values, and its storage hands them to the one insert of
kernel/storage/ledger_rows.py in the statement of that transition. Reading the ledger (balances,
lists, reconciliation) is the `ledger` context's.

Signs: money in is positive (`charge`, `subscription`, `dispute_won`, `payout_failure`), money out
negative (`refund`, `dispute`, `payout`); `net = amount − fee − tax` for every row, and the balance is
the sum of `net`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

AVAILABILITY_DELAY = timedelta(days=2)
"""DESIGN §9: funds become available 2 days after the movement (the merchant's time; TEST: sandbox)."""


class TransactionType(enum.Enum):
    CHARGE = "charge"
    REFUND = "refund"
    DISPUTE = "dispute"
    DISPUTE_WON = "dispute_won"
    SUBSCRIPTION = "subscription"
    PAYOUT = "payout"
    PAYOUT_FAILURE = "payout_failure"
    CONVERSION = "conversion"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One money movement of a transition; its id is made by the statement that writes it."""

    type: TransactionType
    source: str
    amount: int
    fee: int
    tax: int
    net: int
    currency: str
    created: datetime

    def __post_init__(self) -> None:
        if self.net != self.amount - self.fee - self.tax:
            raise ValueError(f"{self.type.value} {self.source}: net must be amount − fee − tax")

    @property
    def available_on(self) -> datetime:
        return self.created + AVAILABILITY_DELAY


def capture_entry(charge_id: str, amount: int, fee: int, currency: str, now: datetime) -> LedgerEntry:
    """A capture credits what was captured, less the fee."""
    return LedgerEntry(TransactionType.CHARGE, charge_id, amount, fee, 0, amount - fee, currency, now)


def refund_entry(refund_id: str, amount: int, currency: str, now: datetime) -> LedgerEntry:
    """A refund debits what was refunded; the capture's fee is not returned (as Stripe)."""
    return LedgerEntry(TransactionType.REFUND, refund_id, -amount, 0, 0, -amount, currency, now)


def dispute_entry(dispute_id: str, amount: int, fee: int, currency: str, now: datetime) -> LedgerEntry:
    """A dispute debits the amount at stake and the dispute fee."""
    return LedgerEntry(TransactionType.DISPUTE, dispute_id, -amount, fee, 0, -amount - fee, currency, now)


def dispute_won_entry(dispute_id: str, amount: int, fee: int, currency: str, now: datetime) -> LedgerEntry:
    """A won dispute gives back what its dispute row took: the amount and the fee (a negative fee)."""
    return LedgerEntry(TransactionType.DISPUTE_WON, dispute_id, amount, -fee, 0, amount + fee, currency, now)


def subscription_entry(
    invoice_id: str, total: int, fee: int, tax: int, currency: str, paid_at: datetime
) -> LedgerEntry:
    """A paid invoice credits its total less the fee and the tax collected for the authority."""
    return LedgerEntry(
        TransactionType.SUBSCRIPTION, invoice_id, total, fee, tax, total - fee - tax, currency, paid_at
    )
