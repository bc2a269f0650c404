"""Payouts (DESIGN §9): when one is due, how much it must reach, which rows it settles, how it ends.

A payout is made at 00:00 UTC of a schedule day of the merchant's time (TEST: its sandbox clock) — every
day (`daily`), Mondays (`weekly`), the 1st (`monthly`) — one per currency whose available balance at
that midnight reaches the currency's minimum. It settles exactly the rows available by then that no
payout settled yet (refunds and returned payouts included: the balance is their sum), and arrives a
day later: `paid`, or `failed` when the account is the sandbox's failing one, in which case a
`payout_failure` row gives the amount back to the balance.

A clock that jumps over several schedule days makes one payout, for the last of them: it settles
everything available by its midnight, so nothing is lost and nothing is paid twice.

With a `settlement_currency`, the other currencies' available balances are converted into it
(domain/conversion.py) and paid out with it, in one payout; a currency without a rate pays out on its
own, as without a settlement currency.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from core_server.kernel.domain.events import DomainEvent
from core_server.ledger.domain.conversion import Conversion, convert, mid_market_rate

MINIMUMS: dict[str, int] = {
    "usd": 2500,
    "eur": 2500,
    "chf": 2500,
    "gbp": 2000,
    "cad": 3500,
    "aud": 4000,
    "jpy": 3500,
}
"""DESIGN §9: the available balance a currency needs before it is paid out (minor units)."""

ARRIVAL_DELAY = timedelta(days=1)
FAILING_ACCOUNT = "000111111116"
"""The sandbox's test account whose payouts fail at arrival."""
FAILURE_CODE = "account_closed"
"""What a failed payout says: the failing test account behaves as a closed one (Stripe's code)."""

PAYOUT_CREATED = "payout.created"
PAYOUT_COMPLETED = "payout.completed"
PAYOUT_FAILED = "payout.failed"


class PayoutStatus(enum.Enum):
    PENDING = "pending"
    PAID = "paid"
    FAILED = "failed"


def schedule_day(schedule: str, today: date) -> date:
    """The latest schedule day at or before `today`: itself (daily), its week's Monday (weekly), its
    month's 1st (monthly). An unknown schedule is daily, the profile's default."""
    if schedule == "weekly":
        return today - timedelta(days=today.weekday())
    if schedule == "monthly":
        return today.replace(day=1)
    return today


def midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def reaches_minimum(amount: int, currency: str) -> bool:
    """A currency without a minimum is never paid out (every supported one has one)."""
    minimum = MINIMUMS.get(currency)
    return minimum is not None and amount >= minimum


@dataclass(frozen=True, slots=True)
class Settleable:
    """A row a payout may settle: unsettled, in the payout's currency."""

    id: str
    net: int
    available_on: datetime


def settled_by(rows: Sequence[Settleable], cutoff: datetime) -> list[Settleable]:
    """The rows available at the payout's midnight; later ones wait for the next payout."""
    return [row for row in rows if row.available_on <= cutoff]


@dataclass(frozen=True, slots=True)
class Payout:
    id: str
    merchant_id: str
    livemode: bool
    amount: int
    currency: str
    status: PayoutStatus
    payout_date: date
    arrival_date: datetime
    created: datetime
    failure_code: str | None = None

    @property
    def balance_row_amount(self) -> int:
        """Its `payout` row takes the amount out of the available balance."""
        return -self.amount


@dataclass(frozen=True, slots=True)
class PayoutPlan:
    """A payout about to be made and the rows it settles: their net, in the payout's currency, plus what
    the conversions bring in, adds up to its amount; each converted currency's rows are taken out whole."""

    payout: Payout
    transaction_ids: tuple[str, ...]
    event: DomainEvent
    settled_nets: tuple[tuple[str, int], ...] = ()
    """Per currency of the rows it settles, their net: what storage checks it still holds."""
    conversions: tuple[Conversion, ...] = ()


def plan_payout(
    payout_id: str,
    merchant_id: str,
    livemode: bool,
    currency: str,
    day: date,
    rows: Sequence[Settleable],
) -> PayoutPlan | None:
    """The payout of `currency` for schedule day `day`, or None when what is available by its midnight
    does not reach the minimum."""
    created = midnight(day)
    settled = settled_by(rows, created)
    amount = sum(row.net for row in settled)
    if not reaches_minimum(amount, currency):
        return None
    payout = Payout(
        id=payout_id,
        merchant_id=merchant_id,
        livemode=livemode,
        amount=amount,
        currency=currency,
        status=PayoutStatus.PENDING,
        payout_date=day,
        arrival_date=created + ARRIVAL_DELAY,
        created=created,
    )
    event = DomainEvent(PAYOUT_CREATED, payout_id, created)
    return PayoutPlan(payout, tuple(row.id for row in settled), event, ((currency, amount),))


def plan_payouts(
    new_id: Callable[[], str],
    merchant_id: str,
    livemode: bool,
    day: date,
    rows: Mapping[str, Sequence[Settleable]],
    settlement_currency: str = "",
    per_usd: Mapping[str, Decimal] | None = None,
) -> list[PayoutPlan]:
    """Every payout of schedule day `day`: one per currency; or, with a settlement currency, one in it
    that takes along every other currency it has a rate for, and one per currency without a rate."""
    rates = per_usd or {}
    convertible = {
        currency
        for currency in rows
        if settlement_currency
        and (
            currency == settlement_currency
            or mid_market_rate(rates, currency, settlement_currency) is not None
        )
    }
    plans = []
    if convertible:
        plan = _settlement_plan(new_id(), merchant_id, livemode, day, rows, settlement_currency, rates)
        if plan is not None:
            plans.append(plan)
    for currency in sorted(set(rows) - convertible):
        single = plan_payout(new_id(), merchant_id, livemode, currency, day, rows[currency])
        if single is not None:
            plans.append(single)
    return plans


def _settlement_plan(
    payout_id: str,
    merchant_id: str,
    livemode: bool,
    day: date,
    rows: Mapping[str, Sequence[Settleable]],
    target: str,
    per_usd: Mapping[str, Decimal],
) -> PayoutPlan | None:
    cutoff = midnight(day)
    own = settled_by(rows.get(target, ()), cutoff)
    converted: list[Settleable] = []
    conversions = []
    for currency in sorted(set(rows) - {target}):
        available = settled_by(rows[currency], cutoff)
        conversion = convert(sum(row.net for row in available), currency, target, per_usd)
        if conversion is not None:
            conversions.append(conversion)
            converted.extend(available)
    amount = sum(row.net for row in own) + sum(c.target_amount for c in conversions)
    if not reaches_minimum(amount, target):
        return None
    payout = Payout(
        id=payout_id,
        merchant_id=merchant_id,
        livemode=livemode,
        amount=amount,
        currency=target,
        status=PayoutStatus.PENDING,
        payout_date=day,
        arrival_date=cutoff + ARRIVAL_DELAY,
        created=cutoff,
    )
    event = DomainEvent(PAYOUT_CREATED, payout_id, cutoff)
    nets: tuple[tuple[str, int], ...] = ((target, sum(row.net for row in own)),) if own else ()
    nets += tuple((c.source_currency, c.source_amount) for c in conversions)
    return PayoutPlan(payout, tuple(row.id for row in own + converted), event, nets, tuple(conversions))


def arrive(payout: Payout, account_number: str) -> tuple[Payout, DomainEvent]:
    """At `arrival_date`: paid, or failed (funds returned by a `payout_failure` row) for the failing
    test account."""
    if account_number == FAILING_ACCOUNT:
        failed = replace(payout, status=PayoutStatus.FAILED, failure_code=FAILURE_CODE)
        return failed, DomainEvent(PAYOUT_FAILED, payout.id, payout.arrival_date)
    paid = replace(payout, status=PayoutStatus.PAID)
    return paid, DomainEvent(PAYOUT_COMPLETED, payout.id, payout.arrival_date)


def parse_status(value: str | None) -> PayoutStatus | None:
    if not value:
        return None
    try:
        return PayoutStatus(value)
    except ValueError:
        return None
