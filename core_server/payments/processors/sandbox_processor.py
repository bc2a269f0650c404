"""The TEST environment's processor: the simulator of `domain.sandbox`, no network."""

from __future__ import annotations

from core_server.payments.application.ports import PaymentRequest
from core_server.payments.domain.payment import PaymentOutcome
from core_server.payments.domain.sandbox import simulate_card, simulate_paypal, simulate_token


class SandboxProcessor:
    async def authorize(self, request: PaymentRequest) -> PaymentOutcome:
        if request.token is not None:
            return simulate_token(request.token)
        source = request.source
        if source.card is not None:
            return simulate_card(source.card)
        assert source.paypal_email is not None
        return simulate_paypal(source.paypal_email)
