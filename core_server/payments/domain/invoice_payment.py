"""The charge of one payment attempt of an invoice (DESIGN §9): captured at once, or failed.

No checkout stands before it: the vaulted method was charged already, so the charge is born in its
final state, with the events a checkout charge would have emitted on the way (`charge.created`, then
`charge.completed` or `charge.failed`). No timer applies to it: the expiry and authorization sweeps
look at pending and authorized charges only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.events import DomainEvent
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.events import ChargeEventType
from core_server.payments.domain.payment import PaymentDetails, PaymentMethodType, PaymentOutcome

NO_RETURN_URL = ""
"""Spec: not shown for a charge without a checkout. `return_url` is a required string of every charge, and
nobody is redirected after an invoice payment, so it is empty (the object keeps its shape)."""


@dataclass(frozen=True, slots=True)
class InvoicePayment:
    """What is charged for which invoice attempt, with the vaulted method's stored description."""

    invoice_id: str
    attempt: int
    amount: int
    currency: str
    description: str
    customer_email: str | None
    method: PaymentMethodType
    details: PaymentDetails
    tax: int = 0
    """The invoice's tax share of `amount` (kernel `invoice_tax_share`), which refunds hand back."""

    def __post_init__(self) -> None:
        if not 0 <= self.tax <= self.amount:
            raise ValueError("an invoice charge's tax share lies between 0 and its amount")


def invoice_charge(
    charge_id: str,
    merchant_id: str,
    environment: Environment,
    payment: InvoicePayment,
    outcome: PaymentOutcome,
    now: datetime,
) -> Charge:
    """Approved → `captured` (amount_captured = amount, fee and net as any capture); declined → `failed`.

    No balance transaction: the invoice's `subscription` row is the ledger's record of this money.

    `expires_at` is the creation time: there is no checkout session to keep open, and the expiry sweep
    never looks at a captured or failed charge anyway.
    """
    if not outcome.reached_processor:
        raise ValueError("an invoice charge needs the processor's answer")
    created = now.replace(microsecond=0)  # whole seconds, as Charge.create
    charge = Charge(
        id=charge_id,
        merchant_id=merchant_id,
        environment=environment,
        amount=payment.amount,
        currency=payment.currency,
        status=ChargeStatus.PENDING,
        return_url=NO_RETURN_URL,
        created=created,
        expires_at=created,
        description=payment.description,
        customer_email=payment.customer_email,
        invoice_id=payment.invoice_id,
        invoice_attempt=payment.attempt,
        tax=payment.tax,
        payment_method=payment.method,
        payment_details=payment.details,
        transaction_id=outcome.transaction_id,
        pending_events=[_event(ChargeEventType.CREATED, charge_id, now)],
    )
    if outcome.approved:
        charge.status = ChargeStatus.AUTHORIZED
        charge.authorized_at = now
        charge.capture(None, now)  # the capture rule itself: fee and net exactly as a manual capture
        # DESIGN §9: the invoice's `subscription` row books this money (written with the PAID invoice);
        # a `charge` row as well would count it twice.
        charge.pending_ledger.clear()
        charge.pending_events.append(_event(ChargeEventType.COMPLETED, charge_id, now))
    else:
        charge.status = ChargeStatus.FAILED
        charge.failure_code = outcome.error_code
        charge.pending_events.append(_event(ChargeEventType.FAILED, charge_id, now))
    return charge


def _event(event_type: ChargeEventType, charge_id: str, now: datetime) -> DomainEvent:
    return DomainEvent(type=event_type.value, object_id=charge_id, occurred_at=now)
