"""formattedAmount for all seven currencies, thousands grouped (DESIGN §5a)."""

import pytest

from core_server.kernel.domain.errors import InvalidRequest
from core_server.kernel.domain.money import check_charge_amount, format_amount, normalize_currency


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (5000, "usd", "$50.00"),
        (123456, "usd", "$1,234.56"),
        (123456, "eur", "€1,234.56"),
        (123456, "gbp", "£1,234.56"),
        (123456, "cad", "CA$1,234.56"),
        (123456, "aud", "A$1,234.56"),
        (1234, "jpy", "¥1,234"),
        (50, "jpy", "¥50"),
        (123400, "chf", "CHF 1,234.00"),
        (99999999, "usd", "$999,999.99"),
        (5, "usd", "$0.05"),
    ],
)
def test_format_amount(amount: int, currency: str, text: str) -> None:
    assert format_amount(amount, currency) == text


def test_currency_is_case_insensitive_and_lowercased() -> None:
    assert normalize_currency("USD") == "usd"


def test_unknown_currency_is_currency_unsupported() -> None:
    with pytest.raises(InvalidRequest) as info:
        normalize_currency("xyz")
    assert info.value.code == "currency_unsupported"
    assert info.value.param == "currency"


@pytest.mark.parametrize(
    ("amount", "code"),
    [
        (49, "amount_too_small"),
        (0, "amount_too_small"),
        (-5, "amount_too_small"),
        (100_000_000, "amount_too_large"),
    ],
)
def test_amount_limits(amount: int, code: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        check_charge_amount(amount)
    assert info.value.code == code


def test_amount_bounds_are_inclusive() -> None:
    check_charge_amount(50)
    check_charge_amount(99_999_999)


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (-1_550, "usd", "-$15.50"),
        (-30, "usd", "-$0.30"),
        (-123_456, "jpy", "-¥123,456"),
        (-5, "chf", "-CHF 0.05"),
    ],
)
def test_a_credit_is_formatted_with_its_sign_before_the_symbol(amount: int, currency: str, text: str) -> None:
    assert format_amount(amount, currency) == text
