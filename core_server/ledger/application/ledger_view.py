"""The one public shape of the balance and of a balance transaction (DESIGN §9): the REST answers, and
whatever event or payout later shows them."""

from __future__ import annotations

from decimal import Decimal

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds
from core_server.ledger.domain.balance import Balance, BalanceTransaction, CurrencyAmount


def _amounts(amounts: tuple[CurrencyAmount, ...]) -> list[JSON]:
    return [{"amount": a.amount, "currency": a.currency} for a in amounts]


def balance_view(balance: Balance) -> JSON:
    return {
        "object": "balance",
        "available": _amounts(balance.available),
        "pending": _amounts(balance.pending),
        "livemode": balance.livemode,
    }


def balance_transaction_view(txn: BalanceTransaction, environment: Environment) -> JSON:
    return {
        "id": txn.id,
        "object": "balance_transaction",
        "type": txn.type.value,
        "source": txn.source,
        "amount": txn.amount,
        "fee": txn.fee,
        "tax": txn.tax,
        "net": txn.net,
        "currency": txn.currency,
        "status": txn.status.value,
        "available_on": unix_seconds(txn.available_on),
        "created": unix_seconds(txn.created),
        "payout": txn.payout,
        "mid_market_rate": _rate(txn.mid_market_rate),
        "exchange_rate": _rate(txn.exchange_rate),
        "livemode": environment.livemode,
    }


def _rate(rate: Decimal | None) -> str | None:
    """A conversion's rate as an exact decimal string (as tax percentages), without trailing zeros."""
    if rate is None:
        return None
    return format(rate.normalize(), "f")


def as_json(view: JSON) -> str:
    """A view as carried to the gateway in `object_json`."""
    return compact_json(view)
