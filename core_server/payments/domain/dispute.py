"""Sandbox disputes: the record opened against a captured charge and its outcome."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from core_server.kernel.domain.errors import ParameterInvalid, StateConflict
from core_server.kernel.domain.state_copies import Immutable

DISPUTE_OUTCOMES = frozenset({"won", "lost"})

DISPUTE_FEE = 1500
"""Spec: dispute fee $15, returned when the dispute is won (in cents)."""


@dataclass(frozen=True, slots=True)
class Dispute(Immutable):
    id: str
    charge_id: str
    amount: int
    currency: str
    status: str
    created: datetime
    fee: int = DISPUTE_FEE
    prior_status: str = "captured"
    """The charge status before the dispute; a won dispute returns the charge to it (DESIGN §4)."""

    def close(self, outcome: str) -> Dispute:
        if outcome not in DISPUTE_OUTCOMES:
            raise ParameterInvalid("Outcome must be 'won' or 'lost'.", param="outcome")
        if self.status != "needs_response":
            raise StateConflict(f"This dispute is already closed as {self.status}.")
        return replace(self, status=outcome)

    @property
    def fee_charged(self) -> int:
        """The $15 fee stays with the platform unless the merchant wins."""
        return 0 if self.status == "won" else self.fee
