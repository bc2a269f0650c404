"""Reconciliation findings: what the ledger proves per merchant, environment and currency (issue 16).

Two proofs. The balance: what GET /balance shows (available + pending, split at the merchant's now)
equals the plain sum of the rows' `net`, and each row adds up (`net = amount − fee − tax`). Coverage:
every movement recorded elsewhere has its row with the same amounts — each capture of a checkout charge
(`charge`), each refund, each dispute and each won dispute (with the tax share it returns, recomputed
from its charge: DESIGN §10.2), each PAID invoice (`subscription`), each
payout (`payout`) and each failed one (`payout_failure`) — no movement row is left without its source,
and the rows a payout settled add up to its amount. A finding names what broke and where, so an
operator can look at that one object.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class FindingKind(enum.Enum):
    MISSING_ROW = "missing_row"
    """A capture, refund, dispute, paid invoice, payout or failed payout without its balance transaction."""
    AMOUNT_MISMATCH = "amount_mismatch"
    """The row exists but its amount, fee, tax or currency is not the movement's; or the rows a payout
    settled do not add up to its amount."""
    ORPHAN_ROW = "orphan_row"
    """A movement row whose source is not (or no longer) such a movement."""
    ROW_DOES_NOT_ADD_UP = "row_does_not_add_up"
    """net ≠ amount − fee − tax."""
    BALANCE_MISMATCH = "balance_mismatch"
    """The balance shown differs from the sum of the rows."""
    CREDIT_MISMATCH = "credit_mismatch"
    """A customer credit balance (DESIGN §10.1) other than the sum of its transactions, a transaction
    whose ending balance breaks the chain, or an invoice whose credit applied, due or credit differs
    from the balance transactions it wrote."""


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    merchant_id: str
    environment: str
    currency: str
    source: str
    """The object concerned (`ch_`, `re_`, `dp_`, `si_`, `po_`, `txn_`), or `""` for a whole balance."""
    detail: str


@dataclass(frozen=True, slots=True)
class BalanceLine:
    """One merchant, environment and currency: the balance shown and the rows' sum."""

    merchant_id: str
    environment: str
    currency: str
    available: int
    pending: int
    rows_net: int
    row_count: int

    @property
    def balance(self) -> int:
        return self.available + self.pending

    @property
    def balanced(self) -> bool:
        return self.balance == self.rows_net


@dataclass(frozen=True, slots=True)
class ReconciliationReport:
    lines: tuple[BalanceLine, ...]
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.findings

    @classmethod
    def of(cls, lines: Sequence[BalanceLine], findings: Sequence[Finding]) -> ReconciliationReport:
        """Balance mismatches become findings too, so `ok` is one question."""
        unbalanced = [
            Finding(
                FindingKind.BALANCE_MISMATCH,
                line.merchant_id,
                line.environment,
                line.currency,
                "",
                f"balance {line.balance} (available {line.available} + pending {line.pending}) "
                f"≠ sum of net {line.rows_net} over {line.row_count} rows",
            )
            for line in lines
            if not line.balanced
        ]
        ordered = sorted(lines, key=lambda x: (x.merchant_id, x.environment, x.currency))
        return cls(tuple(ordered), tuple(unbalanced) + tuple(findings))
