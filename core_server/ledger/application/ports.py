"""The ledger's storage port."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core_server.kernel.application.pagination import Page
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ledger import TransactionType
from core_server.ledger.domain.balance import BalanceTransaction, CurrencyTotals
from core_server.ledger.domain.reconciliation import BalanceLine, Finding


@dataclass(frozen=True, slots=True)
class TransactionQuery:
    merchant_id: str
    environment: Environment
    limit: int
    now: datetime
    """The merchant's time: it decides each row's status."""
    type: TransactionType | None = None
    payout: str | None = None
    currency: str | None = None
    starting_after: str | None = None


class LedgerRepository(Protocol):
    async def totals(
        self, merchant_id: str, environment: Environment, now: datetime
    ) -> Sequence[CurrencyTotals]:
        """Per currency, the sums of `net` of the rows available at `now` and of those still pending."""

    async def list(self, query: TransactionQuery) -> Page[BalanceTransaction]:
        """Newest first (ties by insertion); `total_count` counts every row matching the filters."""

    async def cursor_exists(
        self, merchant_id: str, environment: Environment, transaction_id: str
    ) -> bool: ...

    async def reconcile(self, now: datetime) -> tuple[Sequence[BalanceLine], Sequence[Finding]]:
        """In one snapshot: every merchant, environment and currency with rows, the balance as GET
        /balance computes it (split at each merchant's time for real time `now`) beside the plain sum of
        `net`; and the findings — movements without their row (or with other amounts), rows without
        their movement, rows that do not add up."""
