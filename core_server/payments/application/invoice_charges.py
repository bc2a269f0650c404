"""Charging a vaulted payment method for an invoice: the payments API that billing calls (DESIGN §9).

Each payment attempt of an invoice is one charge, at most: the unique (invoice_id, invoice_attempt) index
makes a retry, a crash between charge and invoice update, or two cores attempting at once all end with
the one charge that was written first, which every caller gets back.

LIVE without a configured processor fails every attempt as `processing_error` (DESIGN §9): the failed
charge is written like a decline, so dunning counts it and moves on, and nothing succeeds by accident.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.application.clocks import merchant_now
from core_server.kernel.application.ports import Clocks, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ProcessorUnavailable
from core_server.kernel.domain.ids import IdCollision, IdSpaceExhausted, id_candidates
from core_server.kernel.domain.money import check_charge_amount, normalize_currency
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.application.ports import (
    InvoiceAttemptTaken,
    InvoiceChargeRepository,
    PaymentRequest,
    Processors,
)
from core_server.payments.domain.card import card_fingerprint
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.checkout import PaymentAttempt
from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
from core_server.payments.domain.payment import (
    UNCONFIGURED_LIVE_PROCESSOR,
    CardDetails,
    PaymentDetails,
    PaymentMethodType,
    PaymentOutcome,
    PaypalDetails,
)


@dataclass(frozen=True, slots=True)
class VaultedSource:
    """What billing passes: the opened gateway token and the details the vault shows."""

    method: str
    """"card" or "paypal"."""
    token: str
    card_brand: str | None = None
    card_last4: str | None = None
    exp_month: int | None = None
    exp_year: int | None = None
    funding: str | None = None
    country: str | None = None
    paypal_email: str | None = None


@dataclass(frozen=True, slots=True)
class InvoiceChargeRequest:
    merchant_id: str
    environment: Environment
    invoice_id: str
    attempt: int
    amount: int
    currency: str
    description: str
    customer_email: str | None
    source: VaultedSource
    tax_cents: int = 0
    """The invoice's tax share of `amount` (DESIGN §10.2: kernel `invoice_tax_share(invoice tax, invoice
    total, amount)`), stored on the charge so its refunds and disputes return it to the customer."""
    at: datetime | None = None
    """When the attempt counts as made (a billing step replayed by a clock advance); None: now."""
    invoice_is_new: bool = False
    """The caller's own write opened the invoice moments ago (a fresh random id) and made no attempt of
    it: no charge can name it, so the look-up for a replay is skipped. Only a core that took the
    subscription over meanwhile could have charged it — the race of two callers past the look-up, which
    the unique (invoice, attempt) index settles the same way."""


_UNCONFIGURED_FAILURE = PaymentOutcome(
    approved=False,
    error_code="processing_error",
    error_message=UNCONFIGURED_LIVE_PROCESSOR.error_message,
)
"""A checkout charge without a processor stays pending for the buyer to try again; an invoice attempt has
no buyer waiting, so it is decided at once: failed, like the decline the dunning schedule expects."""


class InvoiceCharges:
    def __init__(
        self,
        charges: InvoiceChargeRepository,
        processors: Processors,
        clocks: Clocks,
        views: ChargeViews,
        fingerprint_key: bytes,
    ) -> None:
        self._charges = charges
        self._processors = processors
        self._clocks = clocks
        self._views = views
        self._fingerprint_key = fingerprint_key

    async def attempt(self, request: InvoiceChargeRequest) -> Charge:
        """The charge of (invoice, attempt): the one already written, or a new one, captured or failed.

        A replay returns the stored charge unchanged and asks no processor. Two callers racing past that
        read may both ask the processor (with the same attempt key, so a real one can deduplicate);
        only the first charge is written, and the other caller gets it back. LIVE without a processor is
        a written `failed` charge (`processing_error`); any other processor that could not be reached
        writes nothing: ProcessorUnavailable, and the attempt stays free.
        """
        if not request.invoice_is_new:
            existing = await self._charges.find_invoice_attempt(request.invoice_id, request.attempt)
            if existing is not None:
                return existing
        # The bounds of every charge (50 to 99999999, a supported currency): billing settles smaller totals.
        check_charge_amount(request.amount)
        currency = normalize_currency(request.currency)
        method = PaymentMethodType(request.source.method)
        details = self._details(method, request.source)
        processor = self._processors.for_environment(request.environment)
        outcome = await processor.authorize(
            PaymentRequest(
                request.amount,
                currency,
                PaymentAttempt(method=method),
                f"{request.invoice_id}:{request.attempt}",
                token=request.source.token,
            )
        )
        if outcome == UNCONFIGURED_LIVE_PROCESSOR:
            outcome = _UNCONFIGURED_FAILURE
        if not outcome.reached_processor:
            raise ProcessorUnavailable(outcome.error_message or "The payment processor is not available.")
        payment = InvoicePayment(
            invoice_id=request.invoice_id,
            attempt=request.attempt,
            amount=request.amount,
            currency=currency,
            description=request.description,
            customer_email=request.customer_email,
            method=method,
            details=details,
            tax=request.tax_cents,
        )
        # The merchant's clock, after the processor answered: the charge is timed when it was decided.
        now = request.at or await merchant_now(self._clocks, request)
        for charge_id in id_candidates("ch_", 32):
            charge = invoice_charge(
                charge_id, request.merchant_id, request.environment, payment, outcome, now
            )
            try:
                await self._charges.insert_new(charge, TurnWrite(self._views.events(charge)), None)
            except IdCollision:
                continue
            except InvoiceAttemptTaken:
                taken = await self._charges.find_invoice_attempt(request.invoice_id, request.attempt)
                assert taken is not None  # the index said so, and charges are never deleted
                return taken
            charge.pending_events.clear()
            return charge
        raise IdSpaceExhausted("ten charge id collisions in a row")

    def _details(self, method: PaymentMethodType, source: VaultedSource) -> PaymentDetails:
        """The stored description of the vaulted method; the card number is gone, so the fingerprint is
        keyed on the token: stable across a method's attempts, never the number's."""
        if method is PaymentMethodType.PAYPAL:
            if source.paypal_email is None:
                raise ValueError("a PayPal source needs its e-mail")
            return PaypalDetails(email=source.paypal_email)
        if (
            source.card_brand is None
            or source.card_last4 is None
            or source.exp_month is None
            or source.exp_year is None
            or source.funding is None
            or source.country is None
        ):
            raise ValueError("a card source needs its brand, last4, expiry, funding and country")
        return CardDetails(
            brand=source.card_brand,
            last4=source.card_last4,
            exp_month=source.exp_month,
            exp_year=source.exp_year,
            funding=source.funding,
            country=source.country,
            fingerprint=card_fingerprint(source.token, self._fingerprint_key),
        )
