"""The tax shares of DESIGN §10.2, by hand: what a charge for an invoice collected, the fee on it, and what
its refunds and disputes hand back — cumulatively, so together they never return more than collected."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core_server.kernel.domain.fees import transaction_fee
from core_server.kernel.domain.ledger import (
    TransactionType,
    dispute_entry,
    dispute_won_entry,
    invoice_fee,
    invoice_tax_share,
    refund_entry,
    returned_tax,
    share_half_up,
)
from core_server.kernel.domain.money import round_half_up

AT = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "part", "whole", "share"),
    [
        (1, 1, 2, 1),  # 0.5 → 1 (half up)
        (1, 1, 3, 0),  # 0.333…
        (1, 2, 3, 1),  # 0.666…
        (800, 5_400, 10_800, 400),
        (800, 1_000, 10_800, 74),  # 74.07…
        (800, 9_800, 10_800, 726),  # 725.92…
        (825, 50, 10_825, 4),  # 3.81…
        (0, 5, 7, 0),
        (5, 0, 7, 0),
        # Near-halves at the top of the range: 49,999,999.5 exactly, and 49,999,998.499999955 just below.
        (99_999_999, 1, 2, 50_000_000),
        (99_999_998, 49_999_994, 99_999_989, 49_999_998),
    ],
)
def test_a_share_is_rounded_half_up_on_the_exact_fraction(
    value: int, part: int, whole: int, share: int
) -> None:
    assert share_half_up(value, part, whole) == share


@given(
    st.integers(min_value=0, max_value=99_999_999),
    st.integers(min_value=0, max_value=99_999_999),
    st.integers(min_value=1, max_value=99_999_999),
)
def test_a_share_in_integers_is_decimals_round_half_up(value: int, part: int, whole: int) -> None:
    assert share_half_up(value, part, whole) == round_half_up(Decimal(value * part) / Decimal(whole))


@pytest.mark.parametrize(("value", "part", "whole"), [(-1, 1, 2), (1, -1, 2), (1, 1, 0)])
def test_a_share_of_a_negative_or_of_nothing_is_refused(value: int, part: int, whole: int) -> None:
    with pytest.raises(ValueError):
        share_half_up(value, part, whole)


@pytest.mark.parametrize(
    ("tax", "total", "charged", "share"),
    [
        (800, 10_800, 10_800, 800),  # the whole invoice charged: all of its tax
        (800, 10_800, 5_400, 400),  # half of it charged (credit paid the rest): half the tax
        (800, 10_800, 5_401, 400),  # 400.07…
        (800, 10_800, 10_813, 800),  # a carried amount on top: never more than the invoice's tax
        (1, 2, 1, 1),  # 0.5 → 1
        (0, 10_000, 10_000, 0),  # no tax rate
        (-80, -1_080, 0, 0),  # a negative invoice is never charged
        (800, 0, 0, 0),
        (825, 10_825, 60, 5),  # 4.57…
    ],
)
def test_a_charge_collects_the_invoice_tax_in_proportion_to_what_it_charged(
    tax: int, total: int, charged: int, share: int
) -> None:
    assert invoice_tax_share(tax, total, charged) == share


def test_a_negative_charge_has_no_tax_share() -> None:
    with pytest.raises(ValueError):
        invoice_tax_share(800, 10_800, -1)


@pytest.mark.parametrize(
    ("charged", "tax_share", "fee"),
    [
        (10_800, 800, 343),  # 313.2 + 30 = 343.2 → 343; net 9,657
        (10_000, 0, 320),  # a charge without tax pays the capture's fee
        (500, 0, 45),  # 44.5 → 45 (half up)
        (60, 20, 32),  # 31.74 → 32, below what the tax leaves
        (50, 40, 10),  # 31 would exceed the 10 the tax leaves: capped, net 0
        (50, 50, 0),
    ],
)
def test_an_invoice_charges_fee_is_the_capture_fee_capped_by_what_the_tax_leaves(
    charged: int, tax_share: int, fee: int
) -> None:
    assert invoice_fee(charged, tax_share) == fee
    assert fee <= transaction_fee(charged)
    assert charged - fee - tax_share >= 0


@pytest.mark.parametrize(("charged", "tax_share"), [(100, 101), (100, -1)])
def test_a_tax_share_outside_the_charge_is_refused(charged: int, tax_share: int) -> None:
    with pytest.raises(ValueError):
        invoice_fee(charged, tax_share)


def _returns(tax: int, captured: int, pieces: list[int]) -> list[int]:
    """The tax each refund of `pieces`, made in that order, hands back."""
    returned, shares = 0, []
    for piece in pieces:
        shares.append(returned_tax(tax, captured, returned, piece))
        returned += piece
    return shares


@pytest.mark.parametrize(
    ("tax", "captured", "pieces", "shares"),
    [
        (800, 10_800, [10_800], [800]),
        (800, 10_800, [5_400, 5_400], [400, 400]),
        # Tax 1 of 2: the first cent's share rounds up to the whole tax, so the second returns none —
        # per refund it would be 1 + 1, two cents of tax out of one collected.
        (1, 2, [1, 1], [1, 0]),
        (1, 3, [1, 1, 1], [0, 1, 0]),
        (800, 10_800, [1_000, 9_800], [74, 726]),
        (800, 10_800, [1, 1, 1, 1], [0, 0, 0, 0]),  # 4 cents of 10,800 carry 0.3 of a cent of tax
        (0, 10_000, [2_500, 7_500], [0, 0]),  # a charge that collected no tax returns none
    ],
)
def test_refunds_return_the_tax_cumulatively(
    tax: int, captured: int, pieces: list[int], shares: list[int]
) -> None:
    assert _returns(tax, captured, pieces) == shares


def test_a_single_refund_returns_designs_share_of_the_row() -> None:
    # DESIGN §10.2: tax −round_half_up(row tax × R / row amount).
    for refunded in (1, 50, 675, 5_400, 10_799, 10_800):
        assert returned_tax(800, 10_800, 0, refunded) == round_half_up(Decimal(800 * refunded) / 10_800)


@given(
    st.integers(min_value=1, max_value=99_999_999).flatmap(
        lambda captured: st.tuples(
            st.just(captured),
            st.integers(min_value=0, max_value=captured),
            st.lists(st.integers(min_value=1, max_value=captured), min_size=1, max_size=12),
        )
    )
)
def test_however_a_charge_is_cut_up_its_refunds_return_the_tax_on_what_they_returned(
    case: tuple[int, int, list[int]],
) -> None:
    captured, tax, wanted = case
    pieces, left = [], captured
    for piece in wanted:
        if left == 0:
            break
        pieces.append(min(piece, left))
        left -= pieces[-1]
    shares = _returns(tax, captured, pieces)
    assert all(share >= 0 for share in shares)
    assert sum(shares) == share_half_up(tax, sum(pieces), captured) <= tax
    # What is left to dispute returns the rest of the tax: together, exactly what was collected.
    dispute_share = returned_tax(tax, captured, sum(pieces), left)
    assert sum(shares) + dispute_share == tax


def test_more_than_was_captured_cannot_be_returned() -> None:
    with pytest.raises(ValueError):
        returned_tax(800, 10_800, 5_400, 5_401)
    with pytest.raises(ValueError):
        returned_tax(800, 10_800, -1, 1)


def test_a_refund_row_hands_the_tax_back_and_keeps_the_fee() -> None:
    row = refund_entry("re_1", 10_800, 800, "usd", AT)
    assert (row.type, row.source) == (TransactionType.REFUND, "re_1")
    assert (row.amount, row.fee, row.tax, row.net) == (-10_800, 0, -800, -10_000)
    assert row.fee + row.tax + row.net == row.amount


def test_a_dispute_row_returns_the_tax_share_and_its_won_row_takes_it_again() -> None:
    lost = dispute_entry("dp_1", 9_800, 1_500, 726, "usd", AT)
    assert (lost.amount, lost.fee, lost.tax, lost.net) == (-9_800, 1_500, -726, -10_574)
    won = dispute_won_entry("dp_1", 9_800, 1_500, 726, "usd", AT)
    assert (won.type, won.amount, won.fee, won.tax, won.net) == (
        TransactionType.DISPUTE_WON,
        9_800,
        -1_500,
        726,
        10_574,
    )
    assert lost.net + won.net == 0
    assert lost.fee + lost.tax + lost.net == lost.amount and won.fee + won.tax + won.net == won.amount
