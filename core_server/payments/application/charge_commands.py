"""Messages for the ChargeActor: one per spec trigger, each carrying its caller and idempotency claim."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core_server.kernel.application.idempotency import Claim
from core_server.kernel.application.owner import Owner
from core_server.payments.domain.card import CardInput


@dataclass(frozen=True, slots=True)
class CaptureCharge:
    owner: Owner
    amount: int | None
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class RefundCharge:
    owner: Owner
    amount: int | None
    reason: str | None
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class VoidCharge:
    owner: Owner
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class OpenDispute:
    owner: Owner
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class CloseDispute:
    owner: Owner
    dispute_id: str
    outcome: str
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class CompleteCheckout:
    """Public: no owner; the charge id in the URL is the only credential."""

    method: str
    card: CardInput | None
    paypal_email: str | None
    claim: Claim[Any] | None = None


@dataclass(frozen=True, slots=True)
class ExpireIfDue:
    """Sent by the expiration sweep; the actor stays the only writer of the row."""


@dataclass(frozen=True, slots=True)
class CheckoutResult:
    success: bool
    charge_id: str
    status: str
    redirect_url: str
    test_mode: bool
    error_code: str | None = None
    error_message: str | None = None
