"""The LIVE environment's processor port when no real provider is configured.

DESIGN §5: nothing in LIVE ever succeeds by accident; completion answers processing_error and
the charge stays pending. A real provider adapter replaces this class in bootstrap.
"""

from __future__ import annotations

from core_server.domain.charge import Charge
from core_server.domain.checkout import PaymentAttempt
from core_server.domain.payment import UNCONFIGURED_LIVE_PROCESSOR, PaymentOutcome


class UnconfiguredLiveProcessor:
    async def authorize(self, charge: Charge, attempt: PaymentAttempt) -> PaymentOutcome:
        return UNCONFIGURED_LIVE_PROCESSOR
