"""Balance transactions as the contexts that move money write them (DESIGN §9).

The shared kernel holds only the row every context appends — payments for captures, refunds and
disputes, billing for paid invoices, the ledger for payouts — so none of them imports another: each
turns its own transition into LedgerEntry values, and its storage hands them to the one insert of
kernel/storage/ledger_rows.py in the statement of that transition. Reading the ledger (balances,
lists, reconciliation) is the `ledger` context's.

Signs: money in is positive (`charge`, `subscription`, `dispute_won`, `payout_failure`), money out
negative (`refund`, `dispute`, `payout`); `net = amount − fee − tax` for every row, and the balance is
the sum of `net`.

Tax (DESIGN §10.2): a charge that paid an invoice collected a tax share for the authority, which its
`subscription` row kept out of the merchant's net. A refund or dispute of that charge hands the tax
back with the money (a negative `tax`), so the merchant never pays tax it did not receive. The rules
that size those shares live here, beside the rows, so billing (which books the payment) and payments
(which books the refund) compute them one way.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from core_server.kernel.domain.fees import transaction_fee

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


def refund_entry(refund_id: str, amount: int, tax: int, currency: str, now: datetime) -> LedgerEntry:
    """A refund debits what was refunded and hands back `tax`, the refunded part's tax share (0 for a
    charge that collected none); the capture's fee is not returned (as Stripe)."""
    return LedgerEntry(TransactionType.REFUND, refund_id, -amount, 0, -tax, -amount + tax, currency, now)


def dispute_entry(
    dispute_id: str, amount: int, fee: int, tax: int, currency: str, now: datetime
) -> LedgerEntry:
    """A dispute debits the amount at stake and the dispute fee, and hands back the amount's tax share
    (`tax`); the fee stays the merchant's (DESIGN §10.2)."""
    return LedgerEntry(
        TransactionType.DISPUTE, dispute_id, -amount, fee, -tax, -amount - fee + tax, currency, now
    )


def dispute_won_entry(
    dispute_id: str, amount: int, fee: int, tax: int, currency: str, now: datetime
) -> LedgerEntry:
    """A won dispute gives back what its dispute row took: the amount, the fee (a negative fee) and the
    tax share (the merchant holds it again for the authority)."""
    return LedgerEntry(
        TransactionType.DISPUTE_WON, dispute_id, amount, -fee, tax, amount + fee - tax, currency, now
    )


def subscription_entry(
    invoice_id: str, total: int, fee: int, tax: int, currency: str, paid_at: datetime
) -> LedgerEntry:
    """A paid invoice credits its total less the fee and the tax collected for the authority."""
    return LedgerEntry(
        TransactionType.SUBSCRIPTION, invoice_id, total, fee, tax, total - fee - tax, currency, paid_at
    )


def share_half_up(value: int, part: int, whole: int) -> int:
    """round_half_up(value × part / whole), exactly, in integers: (2·value·part + whole) // (2·whole).

    For value, part ≥ 0 and whole > 0 (a share of a non-negative amount); no Decimal context, no float.
    """
    if value < 0 or part < 0 or whole <= 0:
        raise ValueError("a share needs value, part ≥ 0 and whole > 0")
    return (2 * value * part + whole) // (2 * whole)


def invoice_tax_share(invoice_tax: int, invoice_total: int, charged: int) -> int:
    """DESIGN §10.2: the tax a charge of `charged` collected for an invoice of `invoice_total` with
    `invoice_tax` = round_half_up(invoice_tax × min(charged, invoice_total) / invoice_total).

    A charge smaller than the total (credit applied to the rest) collected that fraction of the tax;
    one larger (a carried amount added) collected no more than the whole tax. An invoice with a total
    ≤ 0 is never charged, and no tax ≤ 0 is collected: both give 0.
    """
    if charged < 0:
        raise ValueError("charged must not be negative")
    if invoice_total <= 0 or invoice_tax <= 0:
        return 0
    return share_half_up(invoice_tax, min(charged, invoice_total), invoice_total)


def invoice_fee(charged: int, tax_share: int) -> int:
    """DESIGN §10.2: fee = min(round_half_up(charged × 0.029 + 30), charged − tax_share).

    The fee is capped by what the tax leaves, so net = charged − fee − tax_share is never negative and
    fee + tax + net = charged on the `subscription` row, however small the charge.
    """
    if not 0 <= tax_share <= charged:
        raise ValueError("the tax share must lie between 0 and the amount charged")
    return min(transaction_fee(charged), charged - tax_share)


def returned_tax(charge_tax: int, captured: int, returned_before: int, amount: int) -> int:
    """The tax share handed back when `amount` of a charge is refunded or disputed (DESIGN §10.2).

    `charge_tax` is what the charge collected on `captured`; `returned_before` is what earlier refunds
    already returned of it. Cumulative, not per refund:

        round_half_up(T × (before + amount) / A) − round_half_up(T × before / A)

    For a single refund this is DESIGN's round_half_up(T × R / A). Over several, the shares telescope to
    round_half_up(T × total returned / A), so however a charge is cut up the merchant hands back exactly
    the tax on what it returned — all of T when all of A went back, never more (a per-refund rounding
    would hand back 2 of a tax of 1 for two refunds of 1 out of 2). A dispute of what is left takes
    `returned_before` = the refunds before it, so refunds and dispute together return at most T.
    """
    if returned_before < 0 or amount < 0 or returned_before + amount > captured:
        raise ValueError("refunds and disputes stay within the captured amount")
    if charge_tax == 0:
        return 0
    after = share_half_up(charge_tax, returned_before + amount, captured)
    return after - share_half_up(charge_tax, returned_before, captured)
