"""Amounts as people read and type them: the core's display format, and major units in forms.

The display rule mirrors the core's `format_amount` (kernel/domain/money.py); a unit test compares the
two for every supported currency, so they cannot drift.
"""

from __future__ import annotations

import re

CURRENCY_PREFIX: dict[str, str] = {
    "usd": "$",
    "eur": "€",
    "gbp": "£",
    "cad": "CA$",
    "aud": "A$",
    "jpy": "¥",
    "chf": "CHF ",
}
ZERO_DECIMAL_CURRENCIES = frozenset({"jpy"})
_MAJOR = re.compile(r"(\d{1,9})(?:\.(\d{1,2}))?")


class AmountError(ValueError):
    """What a person typed is not an amount in this currency; the message says why."""


def format_amount(amount: int, currency: str) -> str:
    """`$1,234.56`, `¥1,234`, `CHF 1,234.00`, `-$15.50`."""
    code = currency.lower()
    prefix = CURRENCY_PREFIX.get(code, code.upper() + " ")
    sign = "-" if amount < 0 else ""
    if code in ZERO_DECIMAL_CURRENCIES:
        return f"{sign}{prefix}{abs(amount):,}"
    major, minor = divmod(abs(amount), 100)
    return f"{sign}{prefix}{major:,}.{minor:02d}"


def parse_major(text: str, currency: str) -> int:
    """ "5.00" → 500, "1,234.5" → 123450 cents; yen whole ("500" → 500). Limits are the core's."""
    cleaned = text.strip().replace(",", "")
    match = _MAJOR.fullmatch(cleaned)
    if match is None:
        raise AmountError("Enter an amount such as 5.00.")
    major, minor = match.group(1), match.group(2)
    if currency.lower() in ZERO_DECIMAL_CURRENCIES:
        if minor is not None and int(minor) != 0:
            raise AmountError(f"{currency.upper()} amounts are whole numbers.")
        return int(major)
    return int(major) * 100 + int((minor or "0").ljust(2, "0"))
