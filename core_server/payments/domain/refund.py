"""Refunds and the reasons a merchant may give."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.state_copies import Immutable

REFUND_REASONS = frozenset({"customer_request", "duplicate", "fraudulent", "other"})


@dataclass(frozen=True, slots=True)
class Refund(Immutable):
    id: str
    charge_id: str
    amount: int
    currency: str
    reason: str | None
    created: datetime
    status: str = "succeeded"


def check_reason(reason: str | None) -> None:
    """DESIGN §4: one of customer_request, duplicate, fraudulent, other; absent means null."""
    if reason is not None and reason not in REFUND_REASONS:
        raise ParameterInvalid(
            f"Invalid reason: must be one of {', '.join(sorted(REFUND_REASONS))}.", param="reason"
        )
