"""The platform's transaction fee and the merchant's net.

In the shared kernel because two contexts take it: payments on a capture, billing (through
`ledger.invoice_fee`) on a paid invoice — one definition of the fee for both.
"""

from __future__ import annotations


def transaction_fee(amount: int) -> int:
    """Spec: fee = round(amount × 0.029 + 30), half-up on the exact decimal (DESIGN §4), at most `amount`.

    In integers: (29·amount + 30000 + 500) // 1000, so 500 → 45 where a float round gives 44. DESIGN §9:
    a fee never exceeds what it is taken from (a 1-cent capture has a 1-cent fee, not 30), so fee + net
    = amount for every capture and every balance transaction adds up.
    """
    if amount < 0:
        raise ValueError("amount must not be negative")
    return min((29 * amount + 30_000 + 500) // 1000, amount)


def net_amount(amount: int) -> int:
    """What the merchant keeps of a captured amount: amount − fee, never negative (the fee is capped)."""
    return amount - transaction_fee(amount)
