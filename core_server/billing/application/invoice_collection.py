"""Collecting an invoice: the money step between a move that opens an invoice and the record of its
outcome (DESIGN §9, §10.1).

An attempt first settles the invoice against the customer's credit balance (once: the balance step is
idempotent per invoice), then charges what is due — unless nothing is (the balance covered it, a total
not above zero, or a due below the smallest charge, carried to the next invoice), or the due is above the
largest charge, which fails the attempt like a decline (`amount_too_large`) so dunning takes it.

Attempts run inside the subscription's actor (`Collect`), so a scheduled retry, a new payment method's
retry and a request's first attempt can never share an attempt number. The charge is the payments
context's write, one per invoice and attempt number by a unique index: a core that dies between the
charge and the record leaves the invoice due, and whoever collects it next gets the same charge back
for the same attempt number — charged once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from connect.errors import AMOUNT_TOO_LARGE

from core_server.actors import ActorRegistry
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.application.ports import CustomerBalances
from core_server.billing.domain.credit_balance import InvoiceSettlement
from core_server.billing.domain.invoice import Invoice
from core_server.billing.domain.subscription import Subscription
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.ledger import invoice_tax_share
from core_server.kernel.domain.money import MAX_AMOUNT, MIN_AMOUNT
from core_server.payments.application.invoice_charges import InvoiceChargeRequest, InvoiceCharges
from core_server.payments.domain.charge import ChargeStatus

NO_PAYMENT_METHOD = "no_payment_method"
"""The failure code of an attempt with nothing to charge: the customer has no default payment method."""


@dataclass(frozen=True, slots=True)
class Collect:
    """The actor message (subscription_actor.py): attempt the named owed invoices — None: every OPEN
    invoice with no attempt yet; `owed`: everything owed at the turn — and record each outcome, each
    attempt numbered from the state at that moment. `at`: when the attempts count as made (a billing
    run's step time); None is the merchant's now."""

    invoice_ids: tuple[str, ...] | None = None
    at: datetime | None = None
    owed: bool = False


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """What one attempt did: the balance settlement it made (first attempt only), the charge, if any."""

    settlement: InvoiceSettlement | None
    charge_id: str | None
    paid: bool
    failure_code: str | None = None


class InvoicePayer:
    def __init__(
        self,
        balances: CustomerBalances,
        payment_methods: PaymentMethodService,
        invoice_charges: InvoiceCharges,
    ) -> None:
        self._balances = balances
        self._methods = payment_methods
        self._invoice_charges = invoice_charges

    async def attempt(
        self, subscription: Subscription, invoice: Invoice, at: datetime, *, invoice_is_new: bool = False
    ) -> AttemptOutcome:
        """Attempt number `invoice.attempt_count + 1`, made at `at` (the merchant's time or a step's).

        `invoice_is_new`: the actor's own save opened the invoice in this activation, so no charge can
        name it yet (InvoiceChargeRequest.invoice_is_new)."""
        settlement = None
        if invoice.amount_due_cents is None:
            settlement = await self._balances.settle(invoice, at)
            to_charge = settlement.charge_cents
        else:
            due = invoice.amount_due_cents
            to_charge = due if due >= MIN_AMOUNT else 0
        if to_charge == 0:
            return AttemptOutcome(settlement, None, paid=True)
        if to_charge > MAX_AMOUNT:
            return AttemptOutcome(settlement, None, paid=False, failure_code=AMOUNT_TOO_LARGE.code)
        owner = Owner(subscription.merchant_id, subscription.environment)
        charging = await self._methods.charging_source(owner, subscription.customer_id)
        if charging is None:
            return AttemptOutcome(settlement, None, paid=False, failure_code=NO_PAYMENT_METHOD)
        source, email = charging
        charge = await self._invoice_charges.attempt(
            InvoiceChargeRequest(
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                invoice_id=invoice.id,
                attempt=invoice.attempt_count + 1,
                amount=to_charge,
                currency=invoice.currency,
                description=f"Invoice {invoice.id} ({invoice.billing_reason.value})",
                customer_email=email,
                source=source,
                # The same share the invoice's `subscription` row books (Invoice.tax_share_cents).
                tax_cents=invoice_tax_share(invoice.tax_cents, invoice.total_cents, to_charge),
                at=at,
                invoice_is_new=invoice_is_new,
            )
        )
        paid = charge.status is ChargeStatus.CAPTURED
        return AttemptOutcome(settlement, charge.id, paid, None if paid else charge.failure_code)


class InvoiceCollector:
    """Has a subscription's actor collect its invoices (`Collect`): the request that opened one, the
    billing run's step, a new payment method's retry."""

    def __init__(self, actors: ActorRegistry, *, ask_timeout: float) -> None:
        self._actors = actors
        self._ask_timeout = ask_timeout

    async def collect(
        self,
        owner: Owner,
        subscription: Subscription,
        invoices: Sequence[Invoice] | None = None,
        at: datetime | None = None,
    ) -> Subscription:
        """Attempts `invoices` (by default every OPEN invoice with no attempt yet) at `at` (a billing
        step's time) or now; returns the subscription as it then stands."""
        ids = None if invoices is None else tuple(inv.id for inv in invoices)
        return await self._ask(subscription.id, Collect(ids, at))

    async def collect_owed(self, owner: Owner, subscription: Subscription) -> Subscription:
        """Attempts everything the subscription owes at the moment of the actor's turn."""
        return await self._ask(subscription.id, Collect(None, None, owed=True))

    async def _ask(self, subscription_id: str, message: Collect) -> Subscription:
        result: Subscription = await self._actors.ask(subscription_id, message, timeout=self._ask_timeout)
        return result
