"""Proration to the second (DESIGN §9), in exact integer arithmetic with half-up rounding.

Spec: proration = item_cost × remaining / total, with item_cost = price × quantity and a quantity change
prorating the difference. Each result keeps its inputs, so every cent on an invoice line can be
recomputed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from core_server.kernel.domain.state_copies import Immutable

UNROUNDED_DECIMALS = 6
_SECOND = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class ProrationInputs(Immutable):
    """The numbers the amount was computed from; `unrounded` is the signed exact value (see `prorate`)."""

    seconds_remaining: int
    seconds_total: int
    unit_amount_cents: int
    quantity_delta: int
    unrounded: str

    def as_dict(self) -> dict[str, int | str]:
        return {
            "seconds_remaining": self.seconds_remaining,
            "seconds_total": self.seconds_total,
            "unit_amount_cents": self.unit_amount_cents,
            "quantity_delta": self.quantity_delta,
            "unrounded": self.unrounded,
        }


@dataclass(frozen=True, slots=True)
class Proration(Immutable):
    """`amount_cents` is signed: a charge for more quantity, a credit (negative) for less."""

    amount_cents: int
    inputs: ProrationInputs


def prorate(
    unit_amount_cents: int, quantity_delta: int, period_start: datetime, period_end: datetime, at: datetime
) -> Proration:
    """round_half_up(unit × |delta| × seconds_remaining / seconds_total), signed like `quantity_delta`.

    seconds_remaining = period_end − at and seconds_total = period_end − period_start, each bound
    truncated to the whole second (the API speaks Unix seconds). A change at the period start prorates
    the full amount, one at the period end nothing. Rounding is half-up on the magnitude, so a credit
    is exactly the negative of the matching charge (−0.5 → −1).

    `unrounded` is the signed exact value as a plain decimal string ("500", "12.5", "-12.5") when it
    terminates within 6 decimals; otherwise it is rounded the same way to 6 decimals ("333.333333").
    """
    if unit_amount_cents < 0:
        raise ValueError("unit_amount_cents must not be negative")
    if not period_start < period_end:
        raise ValueError("period_end must be after period_start")
    if not period_start <= at <= period_end:
        raise ValueError("at is outside the period")
    start, end, moment = (_whole_second(t) for t in (period_start, period_end, at))
    seconds_total = (end - start) // _SECOND
    seconds_remaining = (end - moment) // _SECOND
    if seconds_total <= 0:
        raise ValueError("the period must last at least one second")
    sign = -1 if quantity_delta < 0 else 1
    magnitude = Fraction(unit_amount_cents * abs(quantity_delta) * seconds_remaining, seconds_total)
    inputs = ProrationInputs(
        seconds_remaining=seconds_remaining,
        seconds_total=seconds_total,
        unit_amount_cents=unit_amount_cents,
        quantity_delta=quantity_delta,
        unrounded=format_exact(sign * magnitude),
    )
    return Proration(amount_cents=sign * round_fraction_half_up(magnitude), inputs=inputs)


def round_fraction_half_up(value: Fraction) -> int:
    """Half away from zero on an exact fraction: 1/2 → 1, 3/2 → 2, −1/2 → −1 (like `round_half_up`)."""
    magnitude = abs(value)
    rounded = (2 * magnitude.numerator + magnitude.denominator) // (2 * magnitude.denominator)
    return -rounded if value < 0 else rounded


def format_exact(value: Fraction, decimals: int = UNROUNDED_DECIMALS) -> str:
    """The shortest plain decimal for `value`, rounded half away from zero to `decimals` if longer.

    No exponent and no trailing zeros: 500 → "500", 25/2 → "12.5", −25/2 → "-12.5", 1000/3 → "333.333333".
    """
    scale = 10**decimals
    scaled = round_fraction_half_up(value * scale)
    digits, fraction = divmod(abs(scaled), scale)
    text = str(digits)
    tail = str(fraction).rjust(decimals, "0").rstrip("0")
    if tail:
        text = f"{text}.{tail}"
    return f"-{text}" if scaled < 0 else text


def _whole_second(moment: datetime) -> datetime:
    return moment.replace(microsecond=0)
