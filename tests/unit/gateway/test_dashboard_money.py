"""The dashboard shows amounts in the core's format and reads major units as people type them."""

from __future__ import annotations

import pytest

from core_server.kernel.domain import money as core_money
from http_gateway.dashboard.money import CURRENCY_PREFIX, AmountError, format_amount, parse_major


def test_the_currency_table_is_the_cores() -> None:
    assert CURRENCY_PREFIX == core_money.CURRENCY_PREFIX


@pytest.mark.parametrize("currency", sorted(core_money.CURRENCY_PREFIX))
@pytest.mark.parametrize("amount", [0, 5, 50, 999, 123_456, 99_999_999, -1_550])
def test_format_is_the_cores(currency: str, amount: int) -> None:
    assert format_amount(amount, currency) == core_money.format_amount(amount, currency)


@pytest.mark.parametrize(
    ("text", "currency", "cents"),
    [
        ("5.00", "usd", 500),
        ("5", "usd", 500),
        ("5.5", "eur", 550),
        ("1,234.56", "gbp", 123_456),
        (" 0.07 ", "usd", 7),
        ("500", "jpy", 500),
        ("500.00", "jpy", 500),
    ],
)
def test_major_units_become_minor_units(text: str, currency: str, cents: int) -> None:
    assert parse_major(text, currency) == cents


@pytest.mark.parametrize(
    ("text", "currency"),
    [("", "usd"), ("5.001", "usd"), ("-5", "usd"), ("abc", "usd"), ("1e3", "usd"), ("500.5", "jpy")],
)
def test_what_is_not_an_amount_is_refused(text: str, currency: str) -> None:
    with pytest.raises(AmountError):
        parse_major(text, currency)
