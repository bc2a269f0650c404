"""Card detail checks of DESIGN §5/§5a; the charge stays pending on each of them."""

from datetime import UTC, datetime

import pytest

from core_server.kernel.domain.errors import InvalidRequest
from core_server.payments.domain.card import CardInput, card_fingerprint, validate_card
from core_server.payments.domain.checkout import parse_attempt

NOW = datetime(2026, 11, 22, tzinfo=UTC)


@pytest.mark.parametrize(
    ("card", "param"),
    [
        (CardInput("", 12, 2030, "123"), "paymentMethodDetails.card_number"),
        (CardInput("4242abcd42424242", 12, 2030, "123"), "paymentMethodDetails.card_number"),
        (CardInput("424242424242", 12, 2030, "123"), "paymentMethodDetails.card_number"),
        (CardInput("42424242424242424242", 12, 2030, "123"), "paymentMethodDetails.card_number"),
        (CardInput("4242424242424242", 13, 2030, "123"), "paymentMethodDetails.exp_month"),
        (CardInput("4242424242424242", 0, 2030, "123"), "paymentMethodDetails.exp_month"),
        (CardInput("4242424242424242", 10, 2026, "123"), "paymentMethodDetails.exp_year"),
        (CardInput("4242424242424242", 12, 2030, "12"), "paymentMethodDetails.cvc"),
        (CardInput("4242424242424242", 12, 2030, "12a"), "paymentMethodDetails.cvc"),
    ],
)
def test_malformed_cards(card: CardInput, param: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        validate_card(card, NOW)
    assert info.value.param == param


def test_current_month_is_still_valid() -> None:
    validate_card(CardInput("4242424242424242", 11, 2026, "1234"), NOW)


def test_unknown_payment_method() -> None:
    with pytest.raises(InvalidRequest) as info:
        parse_attempt("bitcoin", None, None, NOW)
    assert info.value.param == "paymentMethod"


def test_paypal_needs_a_valid_email() -> None:
    with pytest.raises(InvalidRequest):
        parse_attempt("paypal", None, "not-an-email", NOW)
    assert parse_attempt("paypal", None, "a@b.co", NOW).paypal_email == "a@b.co"


def test_fingerprint_is_keyed_and_stable() -> None:
    a = card_fingerprint("4242424242424242", b"k1")
    assert a == card_fingerprint("4242424242424242", b"k1")
    assert a != card_fingerprint("4242424242424242", b"k2")
    assert "4242" not in a or len(a) == 32
