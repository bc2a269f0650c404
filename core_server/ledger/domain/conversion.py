"""Currency conversion at payout time (DESIGN §9; spec: 1 % above mid-market).

A merchant with a `settlement_currency` is paid out in that currency only: at the payout's midnight the
available balance of each other currency is converted at the mid-market rate less 1 %, written as a
pair of `conversion` rows — the source currency's amount out, the settlement currency's amount in —
each showing both rates. The applied rate is rounded to RATE_PLACES first and the amount computed from
that shown rate, so every converted cent can be recomputed by hand from the row:

    converted = round_half_up(amount / 10^exp(source) × exchange_rate × 10^exp(target))

A negative or zero balance is not converted (it stays, to be paid out or covered later), and neither is
a currency without a rate (LIVE has none unless an operator adds them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from core_server.kernel.domain.money import ZERO_DECIMAL_CURRENCIES, round_half_up

MARKUP = Decimal("0.01")
"""The spec's 1 % above mid-market: the merchant receives mid-market × (1 − 1 %)."""
RATE_PLACES = Decimal("0.0000000001")
"""Rates are shown (and applied) to 10 decimal places."""


def _unit(currency: str) -> Decimal:
    return Decimal(1) if currency in ZERO_DECIMAL_CURRENCIES else Decimal(100)


@dataclass(frozen=True, slots=True)
class Conversion:
    """One source currency's available balance converted into the settlement currency."""

    source_currency: str
    source_amount: int
    target_currency: str
    target_amount: int
    mid_market_rate: Decimal
    exchange_rate: Decimal


def mid_market_rate(per_usd: Mapping[str, Decimal], source: str, target: str) -> Decimal | None:
    """Units of `target` per unit of `source`, from rates quoted per US dollar; None without both."""
    if source not in per_usd or target not in per_usd:
        return None
    return (per_usd[target] / per_usd[source]).quantize(RATE_PLACES, rounding=ROUND_HALF_UP)


def convert(amount: int, source: str, target: str, per_usd: Mapping[str, Decimal]) -> Conversion | None:
    """`amount` (minor units of `source`) in `target`, or None when it cannot or need not be converted."""
    if amount <= 0 or source == target:
        return None
    mid = mid_market_rate(per_usd, source, target)
    if mid is None:
        return None
    applied = (mid * (1 - MARKUP)).quantize(RATE_PLACES, rounding=ROUND_HALF_UP)
    converted = round_half_up(Decimal(amount) / _unit(source) * applied * _unit(target))
    return Conversion(source, amount, target, converted, mid, applied)
