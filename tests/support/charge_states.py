"""Charges in the states the spec's transition table names, built by the domain's own moves at NOW (the
charge, ledger and tax unit tests share them)."""

from datetime import UTC, datetime

from core_server.kernel.domain.environment import Environment
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge, ChargeDraft
from core_server.payments.domain.checkout import describe_payment, parse_attempt
from core_server.payments.domain.payment import PaymentMethodType
from core_server.payments.domain.sandbox import simulate_card

NOW = datetime(2026, 11, 22, 12, 0, 0, 123456, tzinfo=UTC)
KEY = b"k" * 32


def new_charge(amount: int = 10_000) -> Charge:
    draft = ChargeDraft(
        amount=amount,
        currency="usd",
        return_url="https://shop.example/ok",
        cancel_url="https://shop.example/cancel",
    )
    return Charge.create("ch_" + "a" * 32, "acct_1", Environment.TEST, draft, NOW)


def authorized(amount: int = 10_000) -> Charge:
    charge = new_charge(amount)
    attempt = parse_attempt("card", CardInput("4242424242424242", 12, 2099, "123"), None, NOW)
    assert attempt.card is not None
    charge.complete(PaymentMethodType.CARD, describe_payment(attempt, KEY), simulate_card(attempt.card), NOW)
    return charge


def captured(amount: int = 10_000) -> Charge:
    charge = authorized(amount)
    charge.capture(None, NOW)
    return charge
