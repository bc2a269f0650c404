"""LedgerService: the merchant's balance, its balance transactions, and the reconciliation proof."""

from __future__ import annotations

import re

from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.ledger import TransactionType
from core_server.kernel.domain.money import normalize_currency
from core_server.ledger.application.ports import LedgerRepository, TransactionQuery
from core_server.ledger.domain.balance import Balance, BalanceTransaction, parse_type
from core_server.ledger.domain.reconciliation import ReconciliationReport

TRANSACTION_ID_RE = re.compile(r"^txn_[A-Za-z0-9]{24}$")
_PAYOUT_ID_RE = re.compile(r"^po_[A-Za-z0-9]{1,64}$")


class LedgerService:
    def __init__(self, ledger: LedgerRepository, clocks: Clocks) -> None:
        self._ledger = ledger
        self._clocks = clocks

    async def balance(self, owner: Owner) -> Balance:
        """Per currency, available and pending at the merchant's now (TEST: its sandbox clock)."""
        now = await merchant_now(self._clocks, owner)
        totals = await self._ledger.totals(owner.merchant_id, owner.environment, now)
        return Balance.of(totals, owner.environment.livemode)

    async def list(
        self,
        owner: Owner,
        *,
        type: str | None = None,
        payout: str | None = None,
        currency: str | None = None,
        limit: int = 0,
        starting_after: str | None = None,
    ) -> Page[BalanceTransaction]:
        limit = page_limit(limit)
        kind = parse_type(type)
        if type and kind is None:
            allowed = ", ".join(t.value for t in TransactionType)
            raise ParameterInvalid(f"type must be one of {allowed}.", param="type")
        if payout and not _PAYOUT_ID_RE.match(payout):
            raise ParameterInvalid("payout must be a payout id (po_…).", param="payout")
        code = normalize_currency(currency) if currency else None

        async def exists(candidate: str) -> bool:
            return bool(TRANSACTION_ID_RE.match(candidate)) and await self._ledger.cursor_exists(
                owner.merchant_id, owner.environment, candidate
            )

        await require_cursor(starting_after, "balance transaction", exists)
        now = await merchant_now(self._clocks, owner)
        return await self._ledger.list(
            TransactionQuery(
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                limit=limit,
                now=now,
                type=kind,
                payout=payout or None,
                currency=code,
                starting_after=starting_after,
            )
        )

    async def reconcile(self) -> ReconciliationReport:
        """Every merchant, environment and currency: the balance equals its rows, every movement has
        its row. Read-only, both proofs in one snapshot."""
        lines, findings = await self._ledger.reconcile(self._clocks.system().now())
        return ReconciliationReport.of(lines, findings)
