"""Vaulted payment methods (DESIGN §9): what is shown (brand, last4, expiry, funding, country, PayPal
e-mail), what the sandbox decides at attach, and the gateway token that stands for the card afterwards.

The card number and CVC live only for the attach request; the token carries what a later charge needs
(in the sandbox: how the simulator will answer) and is stored sealed, never shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from connect import errors

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import InvalidRequest
from core_server.kernel.domain.input_rules import validate_email
from core_server.payments.domain.card import CardInput, card_brand, validate_card
from core_server.payments.domain.payment import PaymentOutcome
from core_server.payments.domain.sandbox import (
    SIMULATED_COUNTRY,
    SIMULATED_FUNDING,
    simulate_card,
    simulate_paypal,
)

# The token codec is the simulator's (payments owns it); re-exported for the vault's callers and tests.
from core_server.payments.domain.sandbox import TOKEN_PREFIX as TOKEN_PREFIX
from core_server.payments.domain.sandbox import SandboxBehaviour as SandboxBehaviour
from core_server.payments.domain.sandbox import sandbox_token as sandbox_token
from core_server.payments.domain.sandbox import token_behaviour as token_behaviour

PAYMENT_METHOD_ID_RE = re.compile(r"^pm_[A-Za-z0-9]{24}$")
DECLINES_LATER = "4000000000000341"
"""DESIGN §9: attaches fine, every later charge is declined (`generic_decline`): the dunning card."""


class PaymentMethodType(StrEnum):
    CARD = "card"
    PAYPAL = "paypal"


@dataclass(frozen=True, slots=True)
class CardSummary:
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    funding: str
    country: str


@dataclass(frozen=True, slots=True)
class PaymentMethod:
    id: str
    merchant_id: str
    environment: Environment
    customer_id: str
    type: PaymentMethodType
    card: CardSummary | None
    paypal_email: str | None
    created: datetime

    @property
    def livemode(self) -> bool:
        return self.environment.livemode


@dataclass(frozen=True, slots=True)
class Vaulted:
    """What an accepted attach yields: the shown details and the token to seal."""

    type: PaymentMethodType
    card: CardSummary | None
    paypal_email: str | None
    token: str


def _refused(outcome: PaymentOutcome, param: str) -> InvalidRequest:
    """DESIGN §9: a declined attach is 400 invalid_request_error whose code is the decline code."""
    return InvalidRequest(
        outcome.error_message or "The payment method was declined.",
        code=outcome.error_code or "generic_decline",
        param=param,
    )


def _card_params(exc: InvalidRequest) -> InvalidRequest:
    """validate_card names checkout's fields (`paymentMethodDetails.card_number`); here they are `card.…`."""
    param = (exc.param or "").replace("paymentMethodDetails.", "card.").replace("card_number", "number")
    return type(exc)(exc.message, code=exc.code, param=param)


def vault_card(card: CardInput, now: datetime) -> Vaulted:
    """Validates like checkout, asks the simulator; a decline refuses the attach."""
    try:
        validate_card(card, now)
    except InvalidRequest as exc:
        raise _card_params(exc) from None
    outcome = simulate_card(card)
    if not outcome.approved:
        raise _refused(outcome, "card")
    behaviour = (
        SandboxBehaviour.DECLINE_GENERIC if card.number == DECLINES_LATER else SandboxBehaviour.APPROVE
    )
    summary = CardSummary(
        brand=card_brand(card.number),
        last4=card.number[-4:],
        exp_month=card.exp_month,
        exp_year=card.exp_year,
        funding=SIMULATED_FUNDING,
        country=SIMULATED_COUNTRY,
    )
    return Vaulted(PaymentMethodType.CARD, summary, None, sandbox_token(behaviour))


def vault_paypal(email: str) -> Vaulted:
    address = validate_email(email.strip(), "paypal.email")
    outcome = simulate_paypal(address)
    if not outcome.approved:
        raise _refused(outcome, "paypal")
    behaviour = SandboxBehaviour.PENDING if outcome.pending else SandboxBehaviour.APPROVE
    return Vaulted(PaymentMethodType.PAYPAL, None, address, sandbox_token(behaviour))


def live_vault_unavailable() -> InvalidRequest:
    """LIVE has no processor to tokenize with (DESIGN §5): nothing can be vaulted there."""
    return InvalidRequest(
        "Live payment methods are not available: no payment processor is configured.",
        code=errors.PROCESSING_ERROR.code,
        param="type",
    )
