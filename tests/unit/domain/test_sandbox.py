"""Every test card and PayPal account of the spec and DESIGN §5."""

import pytest

from core_server.payments.domain.card import CardInput
from core_server.payments.domain.sandbox import simulate_card, simulate_paypal


def card(number: str) -> CardInput:
    return CardInput(number=number, exp_month=12, exp_year=2099, cvc="123")


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
def test_declining_cards(number: str, code: str) -> None:
    outcome = simulate_card(card(number))
    assert not outcome.approved
    assert outcome.error_code == code
    assert outcome.error_message


@pytest.mark.parametrize("number", ["4242424242424242", "4111111111111", "4000056655665556"])
def test_succeeding_cards_get_sandbox_transaction_ids(number: str) -> None:
    outcome = simulate_card(card(number))
    assert outcome.approved
    assert outcome.transaction_id is not None and outcome.transaction_id.startswith("sandbox_txn_")


def test_paypal_accounts() -> None:
    assert simulate_paypal("success@sandbox.paypal.test").approved
    declined = simulate_paypal("declined@sandbox.paypal.test")
    assert not declined.approved and declined.error_code == "generic_decline"
    pending = simulate_paypal("pending@sandbox.paypal.test")
    assert pending.approved and pending.pending
    assert simulate_paypal("someone@example.com").approved


def test_card_repr_never_shows_the_number_or_cvc() -> None:
    text = repr(CardInput(number="4242424242424242", exp_month=1, exp_year=2030, cvc="987"))
    assert "4242424242424242" not in text and "987" not in text
