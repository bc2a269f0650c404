"""Fee and net: round(amount × 0.029 + 30) half-up on the exact decimal (DESIGN §4)."""

from decimal import Decimal

import pytest

from core_server.kernel.domain.fees import net_amount, transaction_fee
from core_server.kernel.domain.money import round_half_up


@pytest.mark.parametrize(
    ("amount", "fee"),
    [
        (50, 31),  # 31.45 → 31
        (100, 33),  # 32.9 → 33
        (500, 45),  # 44.5 → 45 (a float round gives 44)
        (1000, 59),  # 59.0
        (1500, 74),  # 73.5 → 74
        (10000, 320),
        (99_999_999, 2_900_030),  # 2,900,029.971 → 2,900,030
    ],
)
def test_fee_is_half_up_on_the_exact_decimal(amount: int, fee: int) -> None:
    assert transaction_fee(amount) == fee
    assert transaction_fee(amount) == round_half_up(Decimal(amount) * Decimal("0.029") + 30)


def test_fee_matches_decimal_half_up_capped_at_the_amount_for_every_small_amount() -> None:
    for amount in range(0, 20_000):
        formula = round_half_up(Decimal(amount) * Decimal("0.029") + 30)
        assert transaction_fee(amount) == min(formula, amount)


@pytest.mark.parametrize(
    ("amount", "fee"),
    [(0, 0), (1, 1), (10, 10), (30, 30), (31, 31), (32, 31), (33, 31)],
)
def test_fee_is_at_most_the_amount(amount: int, fee: int) -> None:
    # DESIGN §9: a 1-cent capture has a 1-cent fee, not 30; fee + net = amount, always.
    assert transaction_fee(amount) == fee
    assert transaction_fee(amount) + net_amount(amount) == amount


def test_fee_plus_net_is_the_amount_for_every_small_amount() -> None:
    for amount in range(0, 20_000):
        assert 0 <= net_amount(amount) <= amount
        assert transaction_fee(amount) + net_amount(amount) == amount


def test_net_is_amount_minus_fee() -> None:
    assert net_amount(500) == 455
    assert net_amount(10000) == 9680


def test_net_never_negative() -> None:
    assert net_amount(10) == 0
    assert transaction_fee(10) == 10


def test_negative_amount_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        transaction_fee(-1)
