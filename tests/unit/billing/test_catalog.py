"""Plans and prices (DESIGN §9): amount, currency, interval and count, trial, and price immutability."""

from __future__ import annotations

import pytest

from core_server.billing.domain.catalog import (
    PriceTerms,
    check_price_update,
    validate_plan_description,
    validate_plan_name,
    validate_price_terms,
)
from core_server.kernel.domain.errors import InvalidRequest


@pytest.mark.parametrize(
    ("amount", "currency", "interval", "count", "trial", "expected"),
    [
        (50, "usd", "monthly", 1, None, PriceTerms(50, "usd", "monthly", 1, None)),
        (2000, "EUR", "yearly", 1, 14, PriceTerms(2000, "eur", "yearly", 1, 14)),
        (500, "jpy", "daily", 365, 0, PriceTerms(500, "jpy", "daily", 365, 0)),
        (999, "gbp", "weekly", 52, 730, PriceTerms(999, "gbp", "weekly", 52, 730)),
        (99_999_999, "chf", "monthly", 12, None, PriceTerms(99_999_999, "chf", "monthly", 12, None)),
        (100, "cad", "weekly", 2, None, PriceTerms(100, "cad", "weekly", 2, None)),
        (100, "aud", "monthly", 3, 7, PriceTerms(100, "aud", "monthly", 3, 7)),
    ],
)
def test_valid_terms(
    amount: int, currency: str, interval: str, count: int, trial: int | None, expected: PriceTerms
) -> None:
    terms = validate_price_terms(
        amount_cents=amount,
        currency=currency,
        interval=interval,
        interval_count=count,
        trial_period_days=trial,
    )
    assert terms == expected


@pytest.mark.parametrize(
    ("amount", "currency", "interval", "count", "trial", "code", "param"),
    [
        (49, "usd", "monthly", 1, None, "amount_too_small", "amount_cents"),
        (0, "usd", "monthly", 1, None, "amount_too_small", "amount_cents"),
        (100_000_000, "usd", "monthly", 1, None, "amount_too_large", "amount_cents"),
        (100, "xyz", "monthly", 1, None, "currency_unsupported", "currency"),
        (100, "usd", "hourly", 1, None, "parameter_invalid", "interval"),
        (100, "usd", "Monthly", 1, None, "parameter_invalid", "interval"),
        (100, "usd", "monthly", 0, None, "parameter_invalid", "interval_count"),
        (100, "usd", "monthly", 13, None, "parameter_invalid", "interval_count"),
        (100, "usd", "yearly", 2, None, "parameter_invalid", "interval_count"),
        (100, "usd", "weekly", 53, None, "parameter_invalid", "interval_count"),
        (100, "usd", "daily", 366, None, "parameter_invalid", "interval_count"),
        (100, "usd", "daily", -1, None, "parameter_invalid", "interval_count"),
        (100, "usd", "monthly", 1, -1, "parameter_invalid", "trial_period_days"),
        (100, "usd", "monthly", 1, 731, "parameter_invalid", "trial_period_days"),
    ],
)
def test_refused_terms(
    amount: int, currency: str, interval: str, count: int, trial: int | None, code: str, param: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        validate_price_terms(
            amount_cents=amount,
            currency=currency,
            interval=interval,
            interval_count=count,
            trial_period_days=trial,
        )
    assert (refused.value.code, refused.value.param) == (code, param)


def test_only_active_changes_on_a_price() -> None:
    check_price_update({"active"})
    check_price_update(set())
    for field in ("amount_cents", "currency", "interval", "interval_count", "trial_period_days", "plan"):
        with pytest.raises(InvalidRequest) as refused:
            check_price_update({"active", field})
        assert (refused.value.code, refused.value.param) == ("parameter_invalid", field)


def test_plan_name_and_description() -> None:
    assert validate_plan_name("  Pro  ") == "Pro"
    assert validate_plan_description("") is None and validate_plan_description("monthly pro") == "monthly pro"
    for bad in ("", "   ", "x" * 251):
        with pytest.raises(InvalidRequest) as refused:
            validate_plan_name(bad)
        assert refused.value.param == "name"
    with pytest.raises(InvalidRequest) as too_long:
        validate_plan_description("x" * 501)
    assert too_long.value.param == "description"
