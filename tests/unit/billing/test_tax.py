"""Tax (DESIGN §9): the exact percentage, which rate applies, and both formulas with half-up rounding."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from core_server.billing.domain.tax import (
    TaxAmounts,
    TaxRate,
    apply_rate,
    compute_tax,
    format_percentage,
    normalize_country,
    parse_percentage,
    resolve_rate,
)
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid


def rate(
    rate_id: str,
    percentage: str,
    country: str | None,
    state: str | None = None,
    *,
    active: bool = True,
    inclusive: bool = False,
) -> TaxRate:
    return TaxRate(
        id=rate_id,
        merchant_id="acct_1",
        environment=Environment.TEST,
        percentage=Decimal(percentage),
        display_name=rate_id,
        jurisdiction=None,
        inclusive=inclusive,
        country=country,
        state=state,
        active=active,
        created=datetime(2026, 1, 1, tzinfo=UTC),
        metadata={},
    )


@pytest.mark.parametrize(
    ("subtotal", "percentage", "inclusive", "tax", "total"),
    [
        # exclusive: tax = round_half_up(subtotal × p / 100), total = subtotal + tax
        (1000, "8.25", False, 83, 1083),  # 82.5 → 83 (a banker's round gives 82)
        (200, "8.25", False, 17, 217),  # 16.5 → 17
        (999, "8.25", False, 82, 1081),  # 82.4175 → 82
        (1000, "10", False, 100, 1100),
        (25, "10", False, 3, 28),  # 2.5 → 3
        (1, "50", False, 1, 2),  # 0.5 → 1
        (3, "50", False, 2, 5),  # 1.5 → 2
        (1000, "0", False, 0, 1000),
        (1000, "99.9999", False, 1000, 2000),  # 999.999 → 1000
        (1234, "10", False, 123, 1357),  # JPY, zero-decimal: 123.4 → 123
        (1235, "10", False, 124, 1359),  # JPY: 123.5 → 124
        (0, "8.25", False, 0, 0),
        (99_999_999, "8.25", False, 8_250_000, 108_249_999),  # 8249999.9175 → 8250000
        (1000, "0.0001", False, 0, 1000),  # 0.001 → 0
        # inclusive: total = subtotal, tax = total − round_half_up(total / (1 + p / 100))
        (1000, "10", True, 91, 1000),  # 909.0909… → 909
        (1083, "8.25", True, 83, 1083),  # 1000.4618… → 1000
        (1000, "8.25", True, 76, 1000),  # 923.7875… → 924
        (3, "20", True, 0, 3),  # exactly 2.5 → 3 (a banker's round gives 2, tax 1)
        (9, "20", True, 1, 9),  # exactly 7.5 → 8
        (1000, "0", True, 0, 1000),
        (1000, "99.9999", True, 500, 1000),  # 500.00025 → 500
        (1100, "10", True, 100, 1100),  # JPY: exactly 1000
        (1099, "10", True, 100, 1099),  # JPY: 999.0909… → 999
        (1, "8.25", True, 0, 1),  # 0.9237… → 1
    ],
)
def test_formulas(subtotal: int, percentage: str, inclusive: bool, tax: int, total: int) -> None:
    amounts = compute_tax(subtotal, Decimal(percentage), inclusive=inclusive)
    assert amounts == TaxAmounts(subtotal=subtotal, tax=tax, total=total)


US_CA = rate("txr_us_ca", "7.25", "US", "CA")
US = rate("txr_us", "5", "US")
US_NY_OFF = rate("txr_us_ny_off", "8.875", "US", "NY", active=False)
DE = rate("txr_de", "19", "DE", inclusive=True)
FR_OFF = rate("txr_fr_off", "20", "FR", active=False)
US_LATER = rate("txr_us_later", "6", "US")
MERCHANT_RATES = [US_CA, US, US_NY_OFF, DE, FR_OFF, US_LATER]


@pytest.mark.parametrize(
    ("subscription_rate", "rates", "country", "state", "expected"),
    [
        (None, MERCHANT_RATES, "US", "CA", US_CA),  # country and state first
        (None, MERCHANT_RATES, "us", "ca", US_CA),  # compared upper-case
        (None, MERCHANT_RATES, "US", "TX", US),  # then the country with no state
        (None, MERCHANT_RATES, "US", None, US),  # no state: only a country-only rate matches
        (None, MERCHANT_RATES, "US", "NY", US),  # the inactive state rate is ignored
        (None, MERCHANT_RATES, "DE", "BY", DE),
        (None, MERCHANT_RATES, "FR", None, None),  # the only match is inactive → 0 %
        (None, MERCHANT_RATES, "JP", None, None),  # no match → 0 %
        (None, MERCHANT_RATES, None, None, None),  # no address → 0 %
        (None, [US_CA], "US", "TX", None),  # a state rate never covers another state
        (None, [], "US", "CA", None),
        (DE, MERCHANT_RATES, "US", "CA", DE),  # the subscription's rate wins over the address
    ],
)
def test_resolution(
    subscription_rate: TaxRate | None,
    rates: list[TaxRate],
    country: str | None,
    state: str | None,
    expected: TaxRate | None,
) -> None:
    assert resolve_rate(subscription_rate, rates, country, state) == expected


def test_no_rate_is_zero_percent() -> None:
    assert apply_rate(1234, None) == TaxAmounts(subtotal=1234, tax=0, total=1234)


def test_apply_rate_uses_the_rates_mode() -> None:
    assert apply_rate(1190, DE) == TaxAmounts(subtotal=1190, tax=190, total=1190)  # inclusive 19 %
    assert apply_rate(1000, US_CA) == TaxAmounts(subtotal=1000, tax=73, total=1073)  # 72.5 → 73


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("8.25", "8.25"),
        ("0", "0"),
        ("99.9999", "99.9999"),
        ("10", "10"),
        ("0.0001", "0.0001"),
        ("8.2500", "8.25"),
        (" 7.5 ", "7.5"),
        (7, "7"),
        ("10.0", "10"),
    ],
)
def test_percentage_accepted(raw: object, expected: str) -> None:
    assert format_percentage(parse_percentage(raw)) == expected


@pytest.mark.parametrize(
    "raw",
    ["100", "100.0", "-1", "-0.0001", "8.25001", "abc", "", "1e1", "NaN", "Infinity", 8.25, True, None, 100],
)
def test_percentage_refused(raw: object) -> None:
    with pytest.raises(ParameterInvalid) as refused:
        parse_percentage(raw)
    assert refused.value.param == "percentage"


@pytest.mark.parametrize("raw", ["usa", "U", "1A", "ÜS"])
def test_country_must_be_two_letters(raw: str) -> None:
    with pytest.raises(ParameterInvalid) as refused:
        normalize_country(raw)
    assert refused.value.param == "country"
