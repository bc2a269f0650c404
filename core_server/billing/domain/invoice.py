"""The recurring invoice (DESIGN §9): its lines, its totals under a tax rate, and its status moves.

    DRAFT ──open──▶ OPEN ──record_payment──▶ PAID
      │              │ └──mark_uncollectible──▶ UNCOLLECTIBLE
      │              └──record_failure (stays OPEN, one more attempt counted)
      └──────────────┴──void──▶ VOID          (a zero total settles to PAID without a charge)

Methods take `at` from the caller (no clock reads); a move the status does not allow raises
`StateConflict` (400 `invalid_state`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from core_server.billing.domain.credit_balance import InvoiceSettlement
from core_server.billing.domain.proration import ProrationInputs
from core_server.billing.domain.tax import TaxAmounts, TaxRate, apply_rate
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import StateConflict
from core_server.kernel.domain.ledger import LedgerEntry, invoice_fee, invoice_tax_share, subscription_entry
from core_server.kernel.domain.money import MIN_AMOUNT
from core_server.kernel.domain.public_json import unix_seconds
from core_server.kernel.domain.state_copies import FieldCopy, Immutable

INVOICE_ID_PREFIX = "si_"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class LineKind(StrEnum):
    """Spec: subscription (base charge), addon, past_due_proration (deferred charges), credit."""

    SUBSCRIPTION = "subscription"
    ADDON = "addon"
    PAST_DUE_PRORATION = "past_due_proration"
    CREDIT = "credit"


class InvoiceStatus(StrEnum):
    DRAFT = "DRAFT"
    OPEN = "OPEN"
    PAID = "PAID"
    UNCOLLECTIBLE = "UNCOLLECTIBLE"
    VOID = "VOID"


class BillingReason(StrEnum):
    SUBSCRIPTION_CREATE = "subscription_create"
    SUBSCRIPTION_CYCLE = "subscription_cycle"
    SUBSCRIPTION_UPDATE = "subscription_update"
    SUBSCRIPTION_RESUME = "subscription_resume"


@dataclass(frozen=True, slots=True)
class InvoiceLine(Immutable):
    """One line; `credit` lines are negative. `proration` holds the formula's inputs when prorated."""

    kind: LineKind
    description: str
    amount_cents: int
    quantity: int
    price_id: str
    period_start: datetime
    period_end: datetime
    proration: ProrationInputs | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "description": self.description,
            "amount_cents": self.amount_cents,
            "quantity": self.quantity,
            "price_id": self.price_id,
            "period_start": unix_seconds(self.period_start),
            "period_end": unix_seconds(self.period_end),
            "proration": None if self.proration is None else self.proration.as_dict(),
        }


def invoice_totals(lines: Iterable[InvoiceLine], rate: TaxRate | None) -> TaxAmounts:
    """Subtotal = the sum of the lines, credits included; then the rate (DESIGN §9 formulas).

    DESIGN §10.1: a negative subtotal keeps its sign all the way — exclusive tax on it is negative,
    rounded half-up away from zero — so a total below zero is credited to the customer's balance in
    full, tax included, and nothing is lost.
    """
    subtotal = sum(line.amount_cents for line in lines)
    return apply_rate(subtotal, rate)


def merchant_credit(charged_cents: int, tax_share_cents: int) -> tuple[int, int]:
    """(fee, net) of what an invoice's charge brought in (DESIGN §10.2): fee = min(round_half_up(charged
    × 0.029 + 30), charged − tax), net = charged − fee − tax.

    The tax is collected for the authority (merchant of record), so it is not the merchant's revenue,
    and the fee is at most what the tax leaves: fee + tax + net = charged, always, and net ≥ 0.
    """
    fee = invoice_fee(charged_cents, tax_share_cents)
    return fee, charged_cents - fee - tax_share_cents


def new_invoice_id() -> str:
    """`si_` + 32 lowercase hex characters (spec identifier format), from a CSPRNG."""
    return INVOICE_ID_PREFIX + secrets.token_hex(16)


@dataclass(slots=True)
class Invoice(FieldCopy):
    id: str
    merchant_id: str
    environment: Environment
    subscription_id: str
    customer_id: str
    currency: str
    lines: tuple[InvoiceLine, ...]
    subtotal_cents: int
    tax_cents: int
    total_cents: int
    tax_rate_id: str | None
    status: InvoiceStatus
    billing_reason: BillingReason
    period_start: datetime
    period_end: datetime
    attempt_count: int
    next_attempt_at: datetime | None
    charge_id: str | None
    paid_at: datetime | None
    created: datetime
    first_failed_at: datetime | None = None
    """When the first attempt failed: the dunning schedule counts from it (DESIGN §9)."""
    merchant_fee_cents: int | None = None
    merchant_net_cents: int | None = None
    """The merchant's credit once paid with a charge (`merchant_credit`); the ledger books it."""
    credit_applied_cents: int | None = None
    """DESIGN §10.1: the customer balance applied when the invoice was settled against it (positive: a
    credit used; negative: a carried amount); None until then."""
    amount_due_cents: int | None = None
    """total − credit_applied: what a payment method is asked for (None until settled)."""
    failure_code: str | None = None
    """Why the latest attempt failed (a decline code, or `amount_too_large` when the due cannot be
    charged at all); None after a success."""

    @classmethod
    def draft(
        cls,
        invoice_id: str,
        merchant_id: str,
        environment: Environment,
        subscription_id: str,
        customer_id: str,
        currency: str,
        lines: Iterable[InvoiceLine],
        rate: TaxRate | None,
        billing_reason: BillingReason,
        period_start: datetime,
        period_end: datetime,
        now: datetime,
    ) -> Invoice:
        """Invoice assembly: a DRAFT whose totals are those of `invoice_totals(lines, rate)`."""
        kept = tuple(lines)
        totals = invoice_totals(kept, rate)
        return cls(
            id=invoice_id,
            merchant_id=merchant_id,
            environment=environment,
            subscription_id=subscription_id,
            customer_id=customer_id,
            currency=currency,
            lines=kept,
            subtotal_cents=totals.subtotal,
            tax_cents=totals.tax,
            total_cents=totals.total,
            tax_rate_id=None if rate is None else rate.id,
            status=InvoiceStatus.DRAFT,
            billing_reason=billing_reason,
            period_start=period_start,
            period_end=period_end,
            attempt_count=0,
            next_attempt_at=None,
            charge_id=None,
            paid_at=None,
            # Whole seconds: `created` is Unix seconds in the API.
            created=now.replace(microsecond=0),
        )

    @property
    def livemode(self) -> bool:
        return self.environment.livemode

    @property
    def charged_cents(self) -> int:
        """What a payment method was (or is to be) charged: the due once settled, else the total."""
        return self.total_cents if self.amount_due_cents is None else self.amount_due_cents

    @property
    def tax_share_cents(self) -> int:
        """The tax in `charged_cents` (DESIGN §10.2)."""
        return invoice_tax_share(self.tax_cents, self.total_cents, self.charged_cents)

    def ledger_entry(self) -> LedgerEntry | None:
        """The `subscription` balance transaction of an invoice PAID with a charge (DESIGN §10.2): amount =
        what was charged, its tax share, the fee and the net, dated when it was paid. None otherwise: an
        invoice paid with no charge moved no money through a payment method, so it books no row."""
        if (
            self.status is not InvoiceStatus.PAID
            or self.charge_id is None
            or self.merchant_fee_cents is None
            or self.paid_at is None
        ):
            return None
        charged, tax = self.charged_cents, self.tax_share_cents
        fee = min(self.merchant_fee_cents, charged - tax)
        return subscription_entry(self.id, charged, fee, tax, self.currency, self.paid_at)

    def settle(self, settlement: InvoiceSettlement) -> None:
        """Records what the customer balance did to this invoice (once: the balance step is idempotent)."""
        self.credit_applied_cents = settlement.credit_applied_cents
        self.amount_due_cents = settlement.amount_due_cents

    def open(self) -> None:
        """Spec: DRAFT → OPEN once the invoice exists, before its first charge attempt — which is due at
        once: a core that dies between saving the invoice and charging it leaves it due, so the next
        billing run charges it (one charge per attempt number, by a unique index)."""
        self._require(InvoiceStatus.DRAFT, action="opened")
        self.status = InvoiceStatus.OPEN
        self.next_attempt_at = self.created

    def record_payment(self, charge_id: str, at: datetime) -> None:
        """OPEN → PAID: the attempt's charge succeeded. Also UNCOLLECTIBLE → PAID: the customer of an
        UNPAID subscription set a new payment method and the retry it made succeeded (DESIGN §9)."""
        self._require(InvoiceStatus.OPEN, InvoiceStatus.UNCOLLECTIBLE, action="paid")
        self.attempt_count += 1
        self.charge_id = charge_id
        self.paid_at = at
        self.next_attempt_at = None
        self.failure_code = None
        self.status = InvoiceStatus.PAID

    def record_failure(self, charge_id: str | None, at: datetime, next_attempt_at: datetime | None) -> None:
        """A declined attempt: stays OPEN; `charge_id` names the latest attempt's charge (None: there was
        no payment method to charge); `next_attempt_at` None means no retry left."""
        self._require(InvoiceStatus.OPEN, action="retried")
        if next_attempt_at is not None and next_attempt_at <= at:
            raise ValueError("next_attempt_at must be after the failed attempt")
        self.attempt_count += 1
        self.charge_id = charge_id
        self.next_attempt_at = next_attempt_at

    def record_late_failure(self, charge_id: str | None) -> None:
        """A declined retry of an UNCOLLECTIBLE invoice (a new payment method, DESIGN §9): it stays
        UNCOLLECTIBLE with no retry scheduled; `charge_id` names the declined attempt."""
        self._require(InvoiceStatus.UNCOLLECTIBLE, action="retried")
        self.attempt_count += 1
        self.charge_id = charge_id
        self.next_attempt_at = None

    def mark_uncollectible(self) -> None:
        """Spec: OPEN → UNCOLLECTIBLE when all retries are exhausted."""
        self._require(InvoiceStatus.OPEN, action="marked uncollectible")
        self.next_attempt_at = None
        self.status = InvoiceStatus.UNCOLLECTIBLE

    def void(self) -> None:
        """DESIGN §9: `POST /invoices/{id}/void` for a DRAFT or OPEN invoice."""
        self._require(InvoiceStatus.DRAFT, InvoiceStatus.OPEN, action="voided")
        self.next_attempt_at = None
        self.status = InvoiceStatus.VOID

    def settle_without_charge(self, at: datetime) -> None:
        """PAID at once, with no charge and no attempt counted (no card is touched): the customer balance
        covered it, its total was not above zero, or the due was below a charge's minimum and carried."""
        self._require(InvoiceStatus.DRAFT, InvoiceStatus.OPEN, action="paid")
        if self.amount_due_cents is None or self.amount_due_cents >= MIN_AMOUNT:
            raise ValueError("only a settled invoice with nothing to charge is paid without a charge")
        self.paid_at = at
        self.next_attempt_at = None
        self.status = InvoiceStatus.PAID

    def _require(self, *allowed: InvoiceStatus, action: str) -> None:
        if self.status not in allowed:
            raise StateConflict(f"This invoice cannot be {action}; it is {self.status.value}.")
