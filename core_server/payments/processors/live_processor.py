"""The LIVE environment's processor port when no real provider is configured.

DESIGN §5: nothing in LIVE ever succeeds by accident; completion answers processing_error and
the charge stays pending. A real provider adapter replaces this class in bootstrap.
"""

from __future__ import annotations

from core_server.payments.application.ports import PaymentRequest
from core_server.payments.domain.payment import UNCONFIGURED_LIVE_PROCESSOR, PaymentOutcome


class UnconfiguredLiveProcessor:
    async def authorize(self, request: PaymentRequest) -> PaymentOutcome:
        return UNCONFIGURED_LIVE_PROCESSOR
