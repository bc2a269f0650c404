"""Customer credit balance use cases (DESIGN §10.1): list a customer's balance transactions, and a
merchant's adjustment (goodwill credit or correction).

The balance itself moves only here (adjustments) and in the invoice settlement of invoice_collection.py;
both go through PgCustomerBalances, which holds the balance's row lock for the change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core_server.billing.application.customers import CustomerService
from core_server.billing.application.ports import CustomerBalances
from core_server.billing.domain.credit_balance import (
    BALANCE_TRANSACTION_ID_RE,
    CustomerBalanceTransaction,
    check_adjustment_amount,
    check_description,
)
from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.pagination import Page, page_limit, require_cursor
from core_server.kernel.application.ports import Clocks
from core_server.kernel.domain.money import normalize_currency
from core_server.kernel.domain.public_json import compact_json, unix_seconds


def balance_transaction_view(transaction: CustomerBalanceTransaction) -> dict[str, Any]:
    """DESIGN §10.1's `customer_balance_transaction` object."""
    return {
        "id": transaction.id,
        "object": "customer_balance_transaction",
        "customer_id": transaction.customer_id,
        "amount_cents": transaction.amount_cents,
        "currency": transaction.currency,
        "type": transaction.type.value,
        "invoice_id": transaction.invoice_id,
        "description": transaction.description,
        "ending_balance_cents": transaction.ending_balance_cents,
        "created": unix_seconds(transaction.created),
        "livemode": transaction.livemode,
    }


def balance_transaction_json(transaction: CustomerBalanceTransaction) -> str:
    return compact_json(balance_transaction_view(transaction))


class CustomerBalanceService:
    def __init__(self, balances: CustomerBalances, customers: CustomerService, clocks: Clocks) -> None:
        self._balances = balances
        self._customers = customers
        self._clocks = clocks

    async def list(
        self, owner: Owner, customer_id: str, *, limit: int, starting_after: str | None
    ) -> Page[CustomerBalanceTransaction]:
        limit = page_limit(limit)
        await self._customers.get(owner, customer_id)  # 404 for another tenant's or an unknown one

        async def exists(candidate: str) -> bool:
            return bool(BALANCE_TRANSACTION_ID_RE.match(candidate)) and await self._balances.exists(
                owner, customer_id, candidate
            )

        await require_cursor(starting_after, "balance transaction of this customer", exists)
        return await self._balances.list(owner, customer_id, limit=limit, starting_after=starting_after)

    async def adjust(
        self,
        owner: Owner,
        customer_id: str,
        *,
        amount_cents: int,
        currency: str,
        description: str | None,
        claim: Claim[CustomerBalanceTransaction] | None = None,
    ) -> CustomerBalanceTransaction:
        """A merchant's adjustment: + adds credit, − takes it back (never below 0)."""
        check_adjustment_amount(amount_cents)  # its floor is checked under the balance's lock
        code = normalize_currency(currency)
        text = check_description(description)
        await self._customers.get(owner, customer_id)
        now = await self._now(owner)
        return await self._balances.adjust(
            owner,
            customer_id,
            amount_cents,
            code,
            text,
            now,
            claim.completion if claim is not None else None,
        )

    async def _now(self, owner: Owner) -> datetime:
        return await merchant_now(self._clocks, owner, whole_seconds=True)
