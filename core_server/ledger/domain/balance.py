"""Balance transactions as a merchant reads them, and the balance they add up to (DESIGN §9).

Availability is decided on read, never by a sweep that flips a stored status: a row is `available` once
its `available_on` is at or before the merchant's now (TEST: the sandbox clock), else `pending`. A read
is then exact at any clock position — an advance of the sandbox clock makes funds available at once,
with no job to wait for — and the stored row never changes after its write (payouts later set only
`payout`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from core_server.kernel.domain.ledger import TransactionType


class TransactionStatus(enum.Enum):
    PENDING = "pending"
    AVAILABLE = "available"


def status_at(available_on: datetime, now: datetime) -> TransactionStatus:
    """DESIGN §9: available from `available_on` on (created + 2 days), at the merchant's time."""
    return TransactionStatus.AVAILABLE if available_on <= now else TransactionStatus.PENDING


@dataclass(frozen=True, slots=True)
class BalanceTransaction:
    """`txn_…` as stored; `status` is the one the read's `now` decides."""

    id: str
    type: TransactionType
    source: str
    amount: int
    fee: int
    tax: int
    net: int
    currency: str
    available_on: datetime
    created: datetime
    status: TransactionStatus
    payout: str | None = None
    mid_market_rate: Decimal | None = None
    """A conversion's rates (domain/conversion.py); None on every other row."""
    exchange_rate: Decimal | None = None


@dataclass(frozen=True, slots=True)
class CurrencyAmount:
    amount: int
    currency: str


@dataclass(frozen=True, slots=True)
class CurrencyTotals:
    """The sums of `net` of one currency's rows, split by availability at the read's now."""

    currency: str
    available: int
    pending: int


@dataclass(frozen=True, slots=True)
class Balance:
    """`{object: "balance", available: [...], pending: [...], livemode}`: one entry per currency the
    merchant has rows in, in both lists (a zero shows), ordered by currency code."""

    available: tuple[CurrencyAmount, ...]
    pending: tuple[CurrencyAmount, ...]
    livemode: bool

    @classmethod
    def of(cls, totals: Iterable[CurrencyTotals], livemode: bool) -> Balance:
        ordered = sorted(totals, key=lambda t: t.currency)
        return cls(
            available=tuple(CurrencyAmount(t.available, t.currency) for t in ordered),
            pending=tuple(CurrencyAmount(t.pending, t.currency) for t in ordered),
            livemode=livemode,
        )


def parse_type(value: str | None) -> TransactionType | None:
    """The `type` filter: one of the DESIGN §9 types, or absent."""
    if value is None or value == "":
        return None
    try:
        return TransactionType(value)
    except ValueError:
        return None
