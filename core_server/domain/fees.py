"""The platform's transaction fee and the merchant's net."""

from __future__ import annotations


def transaction_fee(amount: int) -> int:
    """Spec: fee = round(amount × 0.029 + 30), half-up on the exact decimal (DESIGN §4).

    In integers: (29·amount + 30000 + 500) // 1000, so 500 → 45 where a float round gives 44.
    """
    if amount < 0:
        raise ValueError("amount must not be negative")
    return (29 * amount + 30_000 + 500) // 1000


def net_amount(amount: int) -> int:
    """What the merchant keeps of a captured amount; never negative."""
    return max(amount - transaction_fee(amount), 0)


DISPUTE_FEE = 1500
"""Spec: dispute fee $15, returned when the dispute is won (in cents)."""
