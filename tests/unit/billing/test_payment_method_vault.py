"""What the sandbox decides at attach, and what the sealed token remembers for later charges."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core_server.billing.domain.payment_method import (
    SandboxBehaviour,
    token_behaviour,
    vault_card,
    vault_paypal,
)
from core_server.kernel.domain.errors import InvalidRequest
from core_server.payments.domain.card import CardInput

NOW = datetime(2026, 1, 15, tzinfo=UTC)


def card(number: str) -> CardInput:
    return CardInput(number=number, exp_month=12, exp_year=2030, cvc="123")


@pytest.mark.parametrize(
    ("number", "behaviour"),
    [
        ("4242424242424242", SandboxBehaviour.APPROVE),
        ("4000000000000341", SandboxBehaviour.DECLINE_GENERIC),
    ],
)
def test_accepted_cards_carry_their_later_behaviour_in_the_token(
    number: str, behaviour: SandboxBehaviour
) -> None:
    vaulted = vault_card(card(number), NOW)
    assert token_behaviour(vaulted.token) is behaviour
    assert vaulted.card is not None and vaulted.card.last4 == number[-4:]
    assert number not in vaulted.token


@pytest.mark.parametrize(
    ("number", "code"),
    [
        ("4000000000000002", "generic_decline"),
        ("4000000000009995", "insufficient_funds"),
        ("4000000000000069", "expired_card"),
        ("4000000000000127", "incorrect_cvc"),
        ("4000000000000119", "processing_error"),
        ("4000000000003220", "authentication_required"),
        ("5555555555554444", "generic_decline"),
    ],
)
def test_declined_cards_are_refused_with_the_decline_code(number: str, code: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        vault_card(card(number), NOW)
    assert (refused.value.code, refused.value.param) == (code, "card")


@pytest.mark.parametrize(
    ("email", "behaviour"),
    [
        ("buyer@example.com", SandboxBehaviour.APPROVE),
        ("pending@sandbox.paypal.test", SandboxBehaviour.PENDING),
    ],
)
def test_paypal_accounts(email: str, behaviour: SandboxBehaviour) -> None:
    assert token_behaviour(vault_paypal(email).token) is behaviour


def test_two_tokens_of_one_card_differ() -> None:
    assert vault_card(card("4242424242424242"), NOW).token != vault_card(card("4242424242424242"), NOW).token
