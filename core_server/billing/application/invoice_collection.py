"""Collecting an invoice: the money step between a move that opens an invoice and the record of its
outcome (DESIGN §9).

The charge is the payments context's write, so it is made between two turns of the subscription's
actor: the turn that opened the invoice has saved it OPEN; the charge (one per invoice and attempt
number, by a unique index) is made here; `RecordAttempt` then applies the outcome in a second turn. A
core that dies in between leaves the invoice due (its first attempt is due the moment it opens), and
whoever collects it next gets the same charge back for the same attempt number: charged once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from core_server.actors import ActorRegistry
from core_server.billing.application.payment_methods import PaymentMethodService
from core_server.billing.application.subscription_actor import RecordAttempt
from core_server.billing.domain.invoice import Invoice, InvoiceStatus
from core_server.billing.domain.subscription import Subscription
from core_server.kernel.application.owner import Owner
from core_server.payments.application.invoice_charges import InvoiceChargeRequest, InvoiceCharges
from core_server.payments.domain.charge import ChargeStatus


class InvoiceCollector:
    def __init__(
        self,
        actors: ActorRegistry,
        payment_methods: PaymentMethodService,
        invoice_charges: InvoiceCharges,
        *,
        ask_timeout: float,
    ) -> None:
        self._actors = actors
        self._methods = payment_methods
        self._invoice_charges = invoice_charges
        self._ask_timeout = ask_timeout

    async def collect(
        self,
        owner: Owner,
        subscription: Subscription,
        invoices: Sequence[Invoice] | None = None,
        at: datetime | None = None,
    ) -> Subscription:
        """Charges `invoices` (by default every OPEN invoice of `subscription` with no attempt yet) and
        records each outcome in the subscription's actor, at `at` (a billing step's time) or now;
        returns the subscription as it then stands."""
        if invoices is None:
            invoices = [
                inv
                for inv in subscription.invoices
                if inv.status is InvoiceStatus.OPEN and inv.attempt_count == 0
            ]
        for invoice in invoices:
            outcome = await self._attempt(owner, subscription, invoice, at)
            subscription = await self._actors.ask(subscription.id, outcome, timeout=self._ask_timeout)
        return subscription

    async def _attempt(
        self, owner: Owner, subscription: Subscription, invoice: Invoice, at: datetime | None
    ) -> RecordAttempt:
        attempt = invoice.attempt_count + 1
        if invoice.total_cents == 0:
            return RecordAttempt(invoice.id, attempt, None, paid=True, at=at)
        charging = await self._methods.charging_source(owner, subscription.customer_id)
        if charging is None:
            return RecordAttempt(invoice.id, attempt, None, paid=False, at=at)
        source, email = charging
        charge = await self._invoice_charges.attempt(
            InvoiceChargeRequest(
                merchant_id=owner.merchant_id,
                environment=owner.environment,
                invoice_id=invoice.id,
                attempt=attempt,
                amount=invoice.total_cents,
                currency=invoice.currency,
                description=f"Invoice {invoice.id} ({invoice.billing_reason.value})",
                customer_email=email,
                source=source,
                tax_cents=invoice.tax_cents,
            )
        )
        return RecordAttempt(
            invoice.id, attempt, charge.id, paid=charge.status is ChargeStatus.CAPTURED, at=at
        )
