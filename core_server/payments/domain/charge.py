"""The Charge aggregate: its states, the spec's transition table and every money rule on it.

Methods are named after the spec's triggers and take `now` from the caller (no clock reads).
Each successful transition appends the domain event it causes to `pending_events`, which the
application writes to the outbox in the same transaction as the new state, and each money movement its
balance transaction to `pending_ledger` (capture, refund, dispute, dispute won; DESIGN §9), which the
charge's fenced save writes in that same statement.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from connect import errors

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid, StateConflict
from core_server.kernel.domain.events import DomainEvent
from core_server.kernel.domain.fees import net_amount, transaction_fee
from core_server.kernel.domain.ledger import (
    LedgerEntry,
    capture_entry,
    dispute_entry,
    dispute_won_entry,
    refund_entry,
    returned_tax,
)
from core_server.kernel.domain.money import check_positive
from core_server.kernel.domain.state_copies import FieldCopy
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.events import ChargeEventType
from core_server.payments.domain.payment import PaymentDetails, PaymentMethodType, PaymentOutcome
from core_server.payments.domain.refund import Refund, check_reason

CHECKOUT_SESSION = timedelta(hours=24)
AUTHORIZATION_HOLD = timedelta(days=7)
ASYNC_AUTHORIZATION_DELAY = timedelta(seconds=3)
"""DESIGN §5: the pending PayPal sandbox account is authorized "a few seconds later"."""


class ChargeStatus(enum.Enum):
    PENDING = "pending"
    AUTHORIZED = "authorized"
    CAPTURED = "captured"
    FAILED = "failed"
    VOIDED = "voided"
    REFUNDED = "refunded"
    PARTIALLY_REFUNDED = "partially_refunded"
    EXPIRED = "expired"
    DISPUTED = "disputed"


TERMINAL_STATUSES = frozenset(
    {ChargeStatus.FAILED, ChargeStatus.VOIDED, ChargeStatus.REFUNDED, ChargeStatus.EXPIRED}
)
CAPTURED_STATUSES = frozenset({ChargeStatus.CAPTURED, ChargeStatus.REFUNDED, ChargeStatus.PARTIALLY_REFUNDED})
REFUNDABLE_STATUSES = frozenset({ChargeStatus.CAPTURED, ChargeStatus.PARTIALLY_REFUNDED})


@dataclass(frozen=True, slots=True)
class ChargeDraft:
    """A validated create-charge request (see `charge_input.py`)."""

    amount: int
    currency: str
    return_url: str
    description: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    cancel_url: str | None = None
    customer_email: str | None = None


@dataclass(slots=True)
class Charge(FieldCopy):
    id: str
    merchant_id: str
    environment: Environment
    amount: int
    currency: str
    status: ChargeStatus
    return_url: str
    created: datetime
    expires_at: datetime
    description: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    cancel_url: str | None = None
    customer_email: str | None = None
    idempotency_key: str | None = None
    invoice_id: str | None = None
    """Set on the charge of an invoice's payment attempt (DESIGN §9), with its attempt number."""
    invoice_attempt: int | None = None
    tax: int = 0
    """The tax share this charge collected for its invoice (DESIGN §10.2; 0 for every other charge): kept
    out of the merchant's net when booked, so refunds and disputes hand it back (`returned_tax`)."""
    payment_method: PaymentMethodType | None = None
    payment_details: PaymentDetails | None = None
    transaction_id: str | None = None
    failure_code: str | None = None
    authorized_at: datetime | None = None
    authorization_due_at: datetime | None = None
    """Set while an asynchronous authorization (PayPal pending) is outstanding."""
    amount_captured: int | None = None
    fee: int | None = None
    net: int | None = None
    captured_at: datetime | None = None
    amount_refunded: int = 0
    refunded_at: datetime | None = None
    voided_at: datetime | None = None
    disputed_at: datetime | None = None
    refunds: list[Refund] = field(default_factory=list)
    dispute: Dispute | None = None
    pending_events: list[DomainEvent] = field(default_factory=list)
    pending_ledger: list[LedgerEntry] = field(default_factory=list)
    """The balance transactions of this turn's transitions, written with them and then cleared."""

    @classmethod
    def create(
        cls,
        charge_id: str,
        merchant_id: str,
        environment: Environment,
        draft: ChargeDraft,
        now: datetime,
        idempotency_key: str | None = None,
    ) -> Charge:
        """Creation: pending, expires_at = now + 24 h, event `charge.created`."""
        # Whole seconds: `created` is Unix seconds in the API, and ties are ordered by insertion.
        created = now.replace(microsecond=0)
        charge = cls(
            id=charge_id,
            merchant_id=merchant_id,
            environment=environment,
            amount=draft.amount,
            currency=draft.currency,
            status=ChargeStatus.PENDING,
            return_url=draft.return_url,
            created=created,
            expires_at=created + CHECKOUT_SESSION,
            description=draft.description,
            metadata=dict(draft.metadata),
            cancel_url=draft.cancel_url,
            customer_email=draft.customer_email,
            idempotency_key=idempotency_key,
        )
        charge._emit(ChargeEventType.CREATED, now)
        return charge

    @property
    def livemode(self) -> bool:
        return self.environment.livemode

    @property
    def remaining_refundable(self) -> int:
        return (self.amount_captured or 0) - self.amount_refunded

    @property
    def failure_redirect_url(self) -> str:
        """Failure and cancel go to cancel_url; without one, back to return_url (DESIGN §2)."""
        return self.cancel_url or self.return_url

    @property
    def awaiting_authorization(self) -> bool:
        """Paid, but the processor answers later: no second payment may start."""
        return self.status is ChargeStatus.PENDING and self.authorization_due_at is not None

    def checkout_expired(self, now: datetime) -> bool:
        return self.status is ChargeStatus.EXPIRED or (
            self.status is ChargeStatus.PENDING and not self.awaiting_authorization and now >= self.expires_at
        )

    @property
    def timer_due_at(self) -> datetime | None:
        """When `expire_if_due` next changes the charge; None when no timer applies (DESIGN §2).

        The due asynchronous authorization while one is outstanding, else a pending checkout's 24 h, else
        an authorization's 7-day hold. The one statement of these timers: the sweeps' SQL and the test
        fake select by it, and tests/integration/core/test_due_rules_sql.py checks the SQL against it.
        """
        if self.awaiting_authorization:
            return self.authorization_due_at
        if self.status is ChargeStatus.PENDING:
            return self.expires_at
        if self.status is ChargeStatus.AUTHORIZED and self.authorized_at is not None:
            return self.authorized_at + AUTHORIZATION_HOLD
        return None

    def expire_if_due(self, now: datetime) -> bool:
        """The timers, applied by the sweeps and lazily before any command; True when the status changed.

        A due asynchronous authorization completes (`charge.completed`); pending older than 24 h →
        expired; authorized older than 7 days → voided.
        """
        due = self.timer_due_at
        if due is None or now < due:
            return False
        if self.awaiting_authorization:
            self.status = ChargeStatus.AUTHORIZED
            self.authorized_at = due
            self.authorization_due_at = None
            self._emit(ChargeEventType.COMPLETED, now)
        elif self.status is ChargeStatus.PENDING:
            self.status = ChargeStatus.EXPIRED
        else:
            self.status = ChargeStatus.VOIDED
            # When the hold lapsed, not when someone noticed: every read and the sweep agree on it.
            self.voided_at = due
        return True

    def seen_at(self, now: datetime) -> Charge:
        """The charge as a read at `now` shows it: every timer already due applied, to a copy.

        A read never writes (no actor, no lease): it answers with the status and fields the next write
        or sweep will store, so nobody sees `pending` or `authorized` past its deadline in between. The
        copy's events are dropped: `charge.completed` is emitted once, by the write that persists it.
        Returns `self` when no timer is due.
        """
        if self.status not in (ChargeStatus.PENDING, ChargeStatus.AUTHORIZED):
            return self
        view = copy.deepcopy(self)
        if not view.expire_if_due(now):
            return self
        while view.expire_if_due(now):  # a due authorization may also be past its 7-day hold
            pass
        view.pending_events.clear()
        return view

    def ensure_payable(self, now: datetime) -> None:
        """Checkout completion steps 3–4: not expired, still pending."""
        if self.checkout_expired(now):
            raise StateConflict(checkout_message(self, now) or "", code=errors.CHARGE_EXPIRED.code)
        if self.status is not ChargeStatus.PENDING or self.awaiting_authorization:
            raise StateConflict(checkout_message(self, now) or "This payment cannot be completed.")

    def complete(
        self,
        method: PaymentMethodType,
        details: PaymentDetails,
        outcome: PaymentOutcome,
        now: datetime,
    ) -> None:
        """pending → authorized (`charge.completed`) or failed (`charge.failed`).

        An asynchronous approval keeps the charge pending until `authorization_due_at`, when the
        timers of `expire_if_due` authorize it.
        """
        self.ensure_payable(now)
        self.payment_method = method
        self.payment_details = details
        self.transaction_id = outcome.transaction_id
        if outcome.approved and outcome.pending:
            self.authorization_due_at = now + ASYNC_AUTHORIZATION_DELAY
        elif outcome.approved:
            self.status = ChargeStatus.AUTHORIZED
            self.authorized_at = now
            self._emit(ChargeEventType.COMPLETED, now)
        else:
            self.status = ChargeStatus.FAILED
            self.failure_code = outcome.error_code
            self._emit(ChargeEventType.FAILED, now)

    def capture(self, amount: int | None, now: datetime) -> None:
        """authorized → captured; fee = round(captured × 0.029 + 30), net = captured − fee.

        A partial capture releases the remainder; refunds are then bounded by `amount_captured`.
        """
        if amount is not None:
            check_positive(amount)
        if self.status in CAPTURED_STATUSES:
            raise StateConflict(
                "This charge has already been captured.", code=errors.CHARGE_ALREADY_CAPTURED.code
            )
        if self.status is ChargeStatus.EXPIRED:
            raise StateConflict("This charge has expired.", code=errors.CHARGE_EXPIRED.code)
        if self.status is not ChargeStatus.AUTHORIZED:
            raise StateConflict(
                f"Only an authorized charge can be captured; this charge is {self.status.value}."
            )
        captured = self.amount if amount is None else amount
        if captured > self.amount:
            raise ParameterInvalid(
                f"Capture amount {captured} exceeds the authorized amount {self.amount}.", param="amount"
            )
        self.status = ChargeStatus.CAPTURED
        self.amount_captured = captured
        self.fee = transaction_fee(captured)
        self.net = net_amount(captured)
        self.captured_at = now
        self.pending_ledger.append(capture_entry(self.id, captured, self.fee, self.currency, _second(now)))

    def refund(self, refund_id: str, amount: int | None, reason: str | None, now: datetime) -> Refund:
        """captured/partially_refunded → partially_refunded or refunded; never above the captured amount.

        The refund row returns the refunded part's tax share, cumulatively over the charge's refunds
        (`returned_tax`): a charge's refunds together never return more tax than it collected.
        """
        if amount is not None:
            check_positive(amount)
        check_reason(reason)
        if self.status is ChargeStatus.REFUNDED:
            raise StateConflict(
                "This charge has already been fully refunded.", code=errors.CHARGE_ALREADY_REFUNDED.code
            )
        if self.status not in REFUNDABLE_STATUSES:
            raise StateConflict(
                f"Only a captured charge can be refunded; this charge is {self.status.value}."
            )
        remaining = self.remaining_refundable
        refund_amount = remaining if amount is None else amount
        if refund_amount > remaining:
            raise StateConflict(
                f"Refund amount {refund_amount} exceeds the remaining refundable amount {remaining}.",
                code=errors.REFUND_EXCEEDS_CHARGE.code,
                param="amount",
            )
        refund = Refund(
            id=refund_id,
            charge_id=self.id,
            amount=refund_amount,
            currency=self.currency,
            reason=reason,
            created=now.replace(microsecond=0),
        )
        self.refunds.append(refund)
        tax = returned_tax(self.tax, self.amount_captured or 0, self.amount_refunded, refund_amount)
        self.pending_ledger.append(refund_entry(refund_id, refund_amount, tax, self.currency, refund.created))
        self.amount_refunded += refund_amount
        if self.remaining_refundable == 0:
            self.status = ChargeStatus.REFUNDED
            self.refunded_at = now
        else:
            self.status = ChargeStatus.PARTIALLY_REFUNDED
        self._emit(ChargeEventType.REFUNDED, now)
        return refund

    def void(self, now: datetime) -> None:
        """authorized → voided (manual void)."""
        if self.status is not ChargeStatus.AUTHORIZED:
            raise StateConflict(
                f"Only an authorized charge can be voided; this charge is {self.status.value}."
            )
        self.status = ChargeStatus.VOIDED
        self.voided_at = now

    def open_dispute(self, dispute_id: str, now: datetime) -> Dispute:
        """captured/partially_refunded → disputed; the amount at stake is captured − refunded.

        One dispute per charge, as with card networks: a charge back in `captured` after a won dispute
        cannot be disputed again (the dispute stays its `dispute`). The dispute row returns the tax share
        of the amount at stake on top of the refunds before it (`dispute_tax`)."""
        if self.status not in REFUNDABLE_STATUSES:
            raise StateConflict(
                f"Only a captured charge can be disputed; this charge is {self.status.value}."
            )
        if self.dispute is not None:
            raise StateConflict("This charge has already been disputed; a charge can be disputed once.")
        self.dispute = Dispute(
            id=dispute_id,
            charge_id=self.id,
            amount=self.remaining_refundable,
            currency=self.currency,
            status="needs_response",
            created=now.replace(microsecond=0),
            prior_status=self.status.value,
        )
        self.status = ChargeStatus.DISPUTED
        self.disputed_at = now
        dispute = self.dispute
        self.pending_ledger.append(
            dispute_entry(
                dispute.id,
                dispute.amount,
                dispute.fee,
                self.dispute_tax(dispute),
                self.currency,
                dispute.created,
            )
        )
        self._emit(ChargeEventType.DISPUTED, now)
        return dispute

    def close_dispute(self, outcome: str, now: datetime) -> Dispute:
        """won → back to the status before the dispute, amount, fee and tax share returned; lost → stays
        disputed."""
        if self.dispute is None:
            raise StateConflict("This charge has no dispute.")
        self.dispute = self.dispute.close(outcome)
        if self.dispute.status == "won":
            self.status = ChargeStatus(self.dispute.prior_status)
            won = self.dispute
            self.pending_ledger.append(
                dispute_won_entry(
                    won.id, won.amount, won.fee, self.dispute_tax(won), self.currency, _second(now)
                )
            )
        return self.dispute

    def dispute_tax(self, dispute: Dispute) -> int:
        """The tax share of a dispute's amount: what is left once the refunds before it (captured −
        amount at stake) returned theirs, so refunds and dispute together return exactly the tax
        collected. Derived from the dispute alone, so the won row gives back what the dispute row took
        and the reconciliation recomputes it the same way."""
        captured = self.amount_captured or 0
        return returned_tax(self.tax, captured, captured - dispute.amount, dispute.amount)

    def _emit(self, event_type: ChargeEventType, now: datetime) -> None:
        self.pending_events.append(DomainEvent(type=event_type.value, object_id=self.id, occurred_at=now))


def _second(now: datetime) -> datetime:
    """Balance transactions are dated in whole seconds, like every `created` of the API."""
    return now.replace(microsecond=0)


# Spec: "GET checkout returns valid=false with an error message for" these states.
_INVALID_STATE_MESSAGES: dict[ChargeStatus, str] = {
    ChargeStatus.EXPIRED: "This checkout session has expired",
    ChargeStatus.AUTHORIZED: "This payment has already been processed",
    ChargeStatus.CAPTURED: "This payment has already been processed",
    # Spec: not shown for partially_refunded; it was captured, so "already processed".
    ChargeStatus.PARTIALLY_REFUNDED: "This payment has already been processed",
    ChargeStatus.FAILED: "This payment has failed",
    ChargeStatus.VOIDED: "This payment has been cancelled",
    ChargeStatus.REFUNDED: "This payment has been refunded",
    ChargeStatus.DISPUTED: "This payment is under dispute",
}
MALFORMED_ID_MESSAGE = "Invalid charge ID format"
NOT_FOUND_MESSAGE = "Charge not found"


def checkout_message(charge: Charge, now: datetime) -> str | None:
    """Why the customer cannot pay this charge now, or None when they can."""
    if charge.checkout_expired(now):
        return _INVALID_STATE_MESSAGES[ChargeStatus.EXPIRED]
    if charge.awaiting_authorization:
        return _INVALID_STATE_MESSAGES[ChargeStatus.AUTHORIZED]
    return _INVALID_STATE_MESSAGES.get(charge.status)
