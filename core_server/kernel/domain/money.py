"""Currencies, amount limits and the display format of amounts."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from connect import errors

from core_server.kernel.domain.errors import InvalidRequest, ParameterInvalid

MIN_AMOUNT = 50
MAX_AMOUNT = 99_999_999

# Spec: "Multi-currency: usd, eur, gbp, cad, aud, jpy, chf"; prefixes from "Currency formatting".
CURRENCY_PREFIX: dict[str, str] = {
    "usd": "$",
    "eur": "€",
    "gbp": "£",
    "cad": "CA$",
    "aud": "A$",
    "jpy": "¥",
    "chf": "CHF ",
}
SUPPORTED_CURRENCIES = frozenset(CURRENCY_PREFIX)
ZERO_DECIMAL_CURRENCIES = frozenset({"jpy"})


def round_half_up(value: Decimal) -> int:
    """DESIGN §4: every spec `round(…)` is half-up on the exact decimal, never a float round."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def normalize_currency(currency: str) -> str:
    """Lowercases and checks membership; an unknown code is 400 `currency_unsupported`."""
    code = currency.strip().lower()
    if code not in SUPPORTED_CURRENCIES:
        raise InvalidRequest(
            f"Unsupported currency: '{currency}'. Supported: {', '.join(sorted(SUPPORTED_CURRENCIES))}.",
            code=errors.CURRENCY_UNSUPPORTED.code,
            param="currency",
        )
    return code


def check_charge_amount(amount: int) -> None:
    """Spec limits: 50 to 99999999 in the smallest unit (JPY also 50)."""
    if amount < MIN_AMOUNT:
        raise InvalidRequest(
            f"Amount must be at least {MIN_AMOUNT}.", code=errors.AMOUNT_TOO_SMALL.code, param="amount"
        )
    if amount > MAX_AMOUNT:
        raise InvalidRequest(
            f"Amount must be at most {MAX_AMOUNT}.", code=errors.AMOUNT_TOO_LARGE.code, param="amount"
        )


def check_positive(amount: int, param: str = "amount") -> None:
    """Capture and refund amounts must be > 0 (DESIGN §5a: `parameter_invalid`)."""
    if amount <= 0:
        raise ParameterInvalid("Amount must be a positive integer.", param=param)


def format_amount(amount: int, currency: str) -> str:
    """`$1,234.56`, `¥1,234`, `CHF 1,234.00`, `-$15.50`: thousands grouped with commas (DESIGN §5a)."""
    code = currency.lower()
    prefix = CURRENCY_PREFIX[code]
    # A credit is negative: the sign goes before the symbol, and the digits are those of |amount|
    # (divmod of a negative number would give −1,550 as "$-16.50").
    sign = "-" if amount < 0 else ""
    if code in ZERO_DECIMAL_CURRENCIES:
        return f"{sign}{prefix}{abs(amount):,}"
    major, minor = divmod(abs(amount), 100)
    return f"{sign}{prefix}{major:,}.{minor:02d}"
