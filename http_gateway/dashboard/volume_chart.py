"""The home page's 30-day volume chart as server-rendered SVG data: bars per day for one currency,
laid out here (pure arithmetic on the core's daily sums), drawn by the template."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from http_gateway.dashboard.money import format_amount

WIDTH = 600
HEIGHT = 180
_TOP = 10
_BOTTOM = 24  # room for the date labels
_DAY = 86_400


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # "25 Nov: $12.00 (3 payments)", the accessible text of the bar


@dataclass(frozen=True, slots=True)
class VolumeChart:
    currency: str
    total: str
    bars: tuple[Bar, ...]
    first_label: str
    last_label: str
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def baseline(self) -> int:
        return HEIGHT - _BOTTOM


def _day_label(unix: int) -> str:
    moment = datetime.fromtimestamp(unix, UTC)
    return f"{moment.day} {moment:%b}"


def volume_charts(
    days: Iterable[tuple[int, str, int, int]], first_day: int, day_count: int
) -> list[VolumeChart]:
    """One chart per currency from (day, currency, amount, count) rows; every day of the range has a
    slot, days without captures an empty one."""
    by_currency: dict[str, dict[int, tuple[int, int]]] = {}
    for day, currency, amount, count in days:
        by_currency.setdefault(currency, {})[day] = (amount, count)
    return [_chart(c, sums, first_day, day_count) for c, sums in sorted(by_currency.items())]


def _chart(currency: str, sums: dict[int, tuple[int, int]], first_day: int, day_count: int) -> VolumeChart:
    slot = WIDTH / max(day_count, 1)
    usable = HEIGHT - _TOP - _BOTTOM
    peak = max((amount for amount, _ in sums.values()), default=0) or 1
    bars: list[Bar] = []
    for index in range(day_count):
        day = first_day + index * _DAY
        amount, count = sums.get(day, (0, 0))
        height = round(usable * amount / peak, 1)
        plural = "" if count == 1 else "s"
        label = f"{_day_label(day)}: {format_amount(amount, currency)} ({count} payment{plural})"
        bars.append(
            Bar(round(index * slot + 1, 1), HEIGHT - _BOTTOM - height, round(slot - 2, 1), height, label)
        )
    total = sum(amount for amount, _ in sums.values())
    last = first_day + (day_count - 1) * _DAY
    return VolumeChart(
        currency, format_amount(total, currency), tuple(bars), _day_label(first_day), _day_label(last)
    )


def rows_of(reply_days: Sequence[object]) -> list[tuple[int, str, int, int]]:
    return [(d.day, d.currency, d.amount, d.count) for d in reply_days]  # type: ignore[attr-defined]
