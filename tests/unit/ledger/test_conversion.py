"""Currency conversion at payout time (DESIGN §9): mid-market less 1 %, every cent recomputable from the
shown rate, and what a payout with a settlement currency settles."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from itertools import count

from core_server.kernel.domain.money import round_half_up
from core_server.ledger.domain.conversion import convert, mid_market_rate
from core_server.ledger.domain.payout import Settleable, plan_payouts

RATES = {
    "usd": Decimal(1),
    "eur": Decimal("0.92"),
    "gbp": Decimal("0.79"),
    "jpy": Decimal(150),
}
DAY = date(2026, 11, 25)
MIDNIGHT = datetime(2026, 11, 25, tzinfo=UTC)


def test_the_rate_is_mid_market_less_one_percent_and_the_amount_follows_the_shown_rate() -> None:
    conversion = convert(10_000, "eur", "usd", RATES)  # €100.00
    assert conversion is not None
    assert conversion.mid_market_rate == Decimal("1.0869565217")
    assert conversion.exchange_rate == Decimal("1.0760869565")
    assert conversion.target_amount == 10_761
    assert conversion.target_amount == round_half_up(
        Decimal(conversion.source_amount) / 100 * conversion.exchange_rate * 100
    )


def test_zero_decimal_currencies_convert_by_their_own_unit() -> None:
    to_yen = convert(10_000, "usd", "jpy", RATES)  # $100.00 → ¥14 850
    assert to_yen is not None and (to_yen.exchange_rate, to_yen.target_amount) == (Decimal("148.5"), 14_850)
    from_yen = convert(15_000, "jpy", "usd", RATES)  # ¥15 000 → $99.00
    assert from_yen is not None and from_yen.target_amount == 9_900


def test_nothing_to_convert() -> None:
    assert convert(0, "eur", "usd", RATES) is None
    assert convert(-500, "eur", "usd", RATES) is None
    assert convert(500, "usd", "usd", RATES) is None
    assert convert(500, "chf", "usd", RATES) is None  # no rate
    assert mid_market_rate(RATES, "usd", "chf") is None


def rows(prefix: str, *nets: int) -> list[Settleable]:
    return [Settleable(f"txn_{prefix}{i}", net, MIDNIGHT) for i, net in enumerate(nets)]


def ids() -> Callable[[], str]:
    numbers = count(1)
    return lambda: f"po_{next(numbers)}"


def test_a_settlement_currency_takes_every_convertible_balance_into_one_payout() -> None:
    balances = {
        "usd": rows("u", 1_000),
        "eur": rows("e", 6_000, 4_000),
        "chf": rows("c", 3_000),
        "gbp": rows("g", -200),
    }
    plans = plan_payouts(ids(), "acct_1", False, DAY, balances, "usd", RATES)
    settled, chf = plans
    assert (settled.payout.currency, settled.payout.amount) == ("usd", 1_000 + 10_761)
    assert set(settled.transaction_ids) == {"txn_u0", "txn_e0", "txn_e1"}  # a negative gbp balance stays
    assert [(c.source_currency, c.source_amount, c.target_amount) for c in settled.conversions] == [
        ("eur", 10_000, 10_761)
    ]
    assert dict(settled.settled_nets) == {"usd": 1_000, "eur": 10_000}
    assert (chf.payout.currency, chf.payout.amount) == ("chf", 3_000)  # no rate: on its own


def test_without_a_settlement_currency_each_currency_pays_out_on_its_own() -> None:
    balances = {"usd": rows("u", 3_000), "eur": rows("e", 6_000)}
    plans = plan_payouts(ids(), "acct_1", False, DAY, balances)
    assert sorted((p.payout.currency, p.payout.amount, p.conversions) for p in plans) == [
        ("eur", 6_000, ()),
        ("usd", 3_000, ()),
    ]


def test_the_minimum_is_the_settlement_currencys_on_the_converted_total() -> None:
    balances = {"eur": rows("e", 2_000)}  # €20 → $21.52: below usd's 2 500, nothing converts
    assert plan_payouts(ids(), "acct_1", False, DAY, balances, "usd", RATES) == []
    balances = {"eur": rows("e", 2_400), "usd": rows("u", 100)}  # €24 → $25.83, plus $1
    (plan,) = plan_payouts(ids(), "acct_1", False, DAY, balances, "usd", RATES)
    assert (plan.payout.amount, dict(plan.settled_nets)) == (2_583 + 100, {"usd": 100, "eur": 2_400})
