"""The TEST environment's processor: the simulator of `domain.sandbox`, no network."""

from __future__ import annotations

from core_server.domain.charge import Charge
from core_server.domain.checkout import PaymentAttempt
from core_server.domain.payment import PaymentOutcome
from core_server.domain.sandbox import simulate_card, simulate_paypal


class SandboxProcessor:
    async def authorize(self, charge: Charge, attempt: PaymentAttempt) -> PaymentOutcome:
        if attempt.card is not None:
            return simulate_card(attempt.card)
        assert attempt.paypal_email is not None
        return simulate_paypal(attempt.paypal_email)
