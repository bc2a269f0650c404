"""Plans and prices (DESIGN §9): what a price may be, and that it never changes except `active`.

A price is immutable so that every invoice line naming it can be recomputed later; to charge another
amount a merchant creates a new price and deactivates the old one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from connect import errors

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import InvalidRequest, ParameterInvalid
from core_server.kernel.domain.money import MAX_AMOUNT, MIN_AMOUNT, normalize_currency

MAX_INTERVAL_COUNT = {"daily": 365, "weekly": 52, "monthly": 12, "yearly": 1}
"""At most one year between two invoices, whatever the unit."""
INTERVALS = tuple(MAX_INTERVAL_COUNT)
MAX_TRIAL_DAYS = 730
MAX_PLAN_NAME = 250
MAX_PLAN_DESCRIPTION = 500
PRICE_MUTABLE_FIELDS = frozenset({"active"})


@dataclass(frozen=True, slots=True)
class Plan:
    id: str
    merchant_id: str
    environment: Environment
    name: str
    description: str | None
    active: bool
    created: datetime
    metadata: dict[str, str]

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


@dataclass(frozen=True, slots=True)
class PriceTerms:
    """A validated price: what is billed, how often, and the trial a new subscription gets."""

    amount_cents: int
    currency: str
    interval: str
    interval_count: int
    trial_period_days: int | None


@dataclass(frozen=True, slots=True)
class Price:
    id: str
    merchant_id: str
    environment: Environment
    plan_id: str
    terms: PriceTerms
    active: bool
    created: datetime
    metadata: dict[str, str]

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


def validate_plan_name(name: str) -> str:
    cleaned = name.strip()
    if cleaned == "":
        raise ParameterInvalid("name must not be empty.", param="name")
    if len(cleaned) > MAX_PLAN_NAME:
        raise ParameterInvalid(f"name must be at most {MAX_PLAN_NAME} characters.", param="name")
    return cleaned


def validate_plan_description(description: str | None) -> str | None:
    if description is None or description.strip() == "":
        return None
    if len(description) > MAX_PLAN_DESCRIPTION:
        message = f"description must be at most {MAX_PLAN_DESCRIPTION} characters."
        raise ParameterInvalid(message, param="description")
    return description


def check_price_amount(amount_cents: int) -> None:
    """The charge limits (50 to 99999999 minor units), named for the price's field."""
    if amount_cents < MIN_AMOUNT:
        raise InvalidRequest(
            f"amount_cents must be at least {MIN_AMOUNT}.",
            code=errors.AMOUNT_TOO_SMALL.code,
            param="amount_cents",
        )
    if amount_cents > MAX_AMOUNT:
        raise InvalidRequest(
            f"amount_cents must be at most {MAX_AMOUNT}.",
            code=errors.AMOUNT_TOO_LARGE.code,
            param="amount_cents",
        )


def check_interval(interval: str, interval_count: int) -> None:
    """`daily|weekly|monthly|yearly`, every 1..N of them with at most one year in total."""
    if interval not in MAX_INTERVAL_COUNT:
        raise ParameterInvalid(f"interval must be one of {', '.join(INTERVALS)}.", param="interval")
    most = MAX_INTERVAL_COUNT[interval]
    if not 1 <= interval_count <= most:
        message = f"interval_count for {interval} must be between 1 and {most} (at most one year)."
        raise ParameterInvalid(message, param="interval_count")


def check_trial(trial_period_days: int | None) -> None:
    if trial_period_days is not None and not 0 <= trial_period_days <= MAX_TRIAL_DAYS:
        message = f"trial_period_days must be between 0 and {MAX_TRIAL_DAYS}."
        raise ParameterInvalid(message, param="trial_period_days")


def validate_price_terms(
    *,
    amount_cents: int,
    currency: str,
    interval: str,
    interval_count: int = 1,
    trial_period_days: int | None = None,
) -> PriceTerms:
    check_price_amount(amount_cents)
    code = normalize_currency(currency)
    check_interval(interval, interval_count)
    check_trial(trial_period_days)
    return PriceTerms(amount_cents, code, interval, interval_count, trial_period_days)


def check_startable(price: Price, param: str = "price_id") -> None:
    if not price.active:
        raise ParameterInvalid("The price is archived and cannot start new billing.", param=param)


def check_compatible(price: Price, currency: str, interval: str, interval_count: int, param: str) -> None:
    """A subscription bills all its items on one invoice, so every price it takes shares its currency
    and its billing interval."""
    terms = price.terms
    if terms.currency != currency:
        raise ParameterInvalid(
            f"The price's currency ({terms.currency}) differs from the subscription's ({currency}).",
            param=param,
        )
    if (terms.interval, terms.interval_count) != (interval, interval_count):
        raise ParameterInvalid(
            f"The price's billing interval differs from the subscription's ({interval_count} × {interval}).",
            param=param,
        )


def check_price_update(fields: set[str] | frozenset[str]) -> None:
    """Only `active` changes: any other field of a price is refused by name."""
    for name in sorted(fields - PRICE_MUTABLE_FIELDS):
        message = (
            f"A price cannot change after creation except `active`; create a new price to change {name}."
        )
        raise ParameterInvalid(message, param=name)
