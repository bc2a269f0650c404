"""A subscription's statuses and which triggers each accepts (spec: Subscription transitions; DESIGN §9,
§10.4): a trigger its status does not accept is 400 invalid_state and changes nothing."""

from __future__ import annotations

from enum import StrEnum

from core_server.billing.domain.invoice import InvoiceStatus
from core_server.kernel.domain.errors import StateConflict


class SubscriptionStatus(StrEnum):
    TRIALING = "TRIALING"
    ACTIVE = "ACTIVE"
    PAST_DUE = "PAST_DUE"
    UNPAID = "UNPAID"
    PAUSED = "PAUSED"
    CANCELED = "CANCELED"


def still_owed(invoice: InvoiceStatus, subscription: SubscriptionStatus) -> bool:
    """An OPEN invoice, or the UNCOLLECTIBLE one of an UNPAID subscription: its customer can still pay
    it with a new payment method until the subscription is canceled (DESIGN §9). The actor keeps these
    in memory and the repository loads them (subscription_repository.py's _OWED_INVOICES)."""
    return invoice is InvoiceStatus.OPEN or (
        invoice is InvoiceStatus.UNCOLLECTIBLE and subscription is SubscriptionStatus.UNPAID
    )


CHANGEABLE = frozenset({SubscriptionStatus.TRIALING, SubscriptionStatus.ACTIVE})
"""Price changes and item moves: not while money is owed, paused or over."""
PAUSABLE = frozenset({SubscriptionStatus.ACTIVE})
OPEN_STATUSES = frozenset(set(SubscriptionStatus) - {SubscriptionStatus.CANCELED})
BILLED_STATUSES = frozenset({SubscriptionStatus.ACTIVE, SubscriptionStatus.PAST_DUE})
"""DESIGN §10.4: a PAST_DUE subscription's periods are still invoiced at their ends (and announced)."""


def require_status(status: SubscriptionStatus, allowed: frozenset[SubscriptionStatus], action: str) -> None:
    """400 invalid_state on `status` when a subscription in `status` may not `action`."""
    if status not in allowed:
        raise StateConflict(f"Cannot {action} a subscription with status {status.value}.", param="status")
