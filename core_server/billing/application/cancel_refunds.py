"""The refund an immediate cancel with `prorate` owes (DESIGN §10.2), made exactly once.

The cancel's turn saved what is owed (`PendingCancelRefund`); this makes the refund through payments'
own refund path under an idempotency key of its own — one per subscription, in a scope no API request
can use — so the request, its retry and the billing run (after a crash) all end with the one refund the
first of them made. What is refunded is at most what the charge still holds; a charge that holds nothing
(refunded, disputed) gets no refund and the cancel stands with `cancel_refund: null`.
"""

from __future__ import annotations

from core_server.billing.domain.subscription_lifecycle import PendingCancelRefund
from core_server.kernel.application.idempotency import IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import IdempotencyRequest
from core_server.kernel.domain.errors import InvalidRequest, NotFound
from core_server.kernel.domain.replays import Replay, ReplayedError
from core_server.payments.application.charges import ChargeService
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.refund import Refund

_REFUNDABLE = frozenset({ChargeStatus.CAPTURED, ChargeStatus.PARTIALLY_REFUNDED})


def refund_key(owner: Owner, subscription_id: str) -> IdempotencyRequest:
    """The refund's own key: a scope with a suffix no API key's scope has (kernel/transport/mapping.py)."""
    return IdempotencyRequest(
        scope=f"{owner.merchant_id}:{owner.environment.value}:cancel-refund",
        key=subscription_id,
        fingerprint="cancel_refund",
    )


def _refund_id(made: tuple[Refund, Charge]) -> bytes:
    """The stored answer of the refund's key: the refund's id, all a retry needs."""
    return made[0].id.encode()


class CancelRefunds:
    def __init__(self, charges: ChargeService, runner: IdempotentRunner) -> None:
        self._charges = charges
        self._runner = runner

    async def make(self, owner: Owner, subscription_id: str, pending: PendingCancelRefund) -> str | None:
        """The refund's id, or None when the charge has nothing left to refund."""
        try:
            charge = await self._charges.get(owner, pending.charge_id)
        except NotFound:
            return None
        amount = min(pending.amount_cents, charge.remaining_refundable)
        if charge.status not in _REFUNDABLE or amount <= 0:
            return None
        try:
            # An internal key, not a request's: the runner directly, not the RPC path (idempotent_rpc).
            result = await self._runner.run(
                refund_key(owner, subscription_id),
                _refund_id,
                lambda claim: self._charges.refund(owner, charge.id, amount, None, claim),
            )
        except (InvalidRequest, ReplayedError):
            return None  # refunded or disputed meanwhile: nothing is owed back on this charge
        if isinstance(result, Replay):
            return result.response.decode()
        refund, _ = result
        return refund.id
