"""The one public shape of a charge, its refunds and its dispute.

The REST answers (carried to the gateway as JSON inside the gRPC responses) and the `data.object` of
every charge event are rendered here, so a merchant gets the same object from `GET /charges/{id}`, from
the list and from a webhook. Fields of later stages appear only once they exist (spec: "Fields present
once a payment has been processed or captured").
"""

from __future__ import annotations

from dataclasses import dataclass

from core_server.kernel.application.outbox import OutboxEvent, render_events
from core_server.kernel.domain.public_json import JSON, compact_json, unix_seconds
from core_server.payments.domain.charge import Charge
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.payment import CardDetails, PaypalDetails
from core_server.payments.domain.refund import Refund


def refund_view(refund: Refund) -> JSON:
    return {
        "id": refund.id,
        "object": "refund",
        "charge": refund.charge_id,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status,
        "reason": refund.reason,
        "created": unix_seconds(refund.created),
    }


def dispute_view(dispute: Dispute) -> JSON:
    return {
        "id": dispute.id,
        "object": "dispute",
        "charge": dispute.charge_id,
        "amount": dispute.amount,
        "currency": dispute.currency,
        "status": dispute.status,
        "fee": dispute.fee,
        "created": unix_seconds(dispute.created),
    }


def payment_method_details_view(charge: Charge) -> JSON | None:
    details = charge.payment_details
    if isinstance(details, CardDetails):
        card = {
            "brand": details.brand,
            "last4": details.last4,
            "exp_month": details.exp_month,
            "exp_year": details.exp_year,
            "funding": details.funding,
            "country": details.country,
        }
        return {"type": "card", "card": card}
    if isinstance(details, PaypalDetails):
        return {"type": "paypal", "paypal": {"email": details.email}}
    return None


def charge_view(charge: Charge, checkout_base_url: str) -> JSON:
    """The spec's charge object; `payment_method` and the capture, refund, dispute and failure fields
    appear once the charge got that far, `invoice` only on an invoice's payment attempt (DESIGN §9)."""
    view: JSON = {
        "id": charge.id,
        "object": "charge",
        "amount": charge.amount,
        "currency": charge.currency,
        "status": charge.status.value,
        "description": charge.description,
        "metadata": dict(charge.metadata),
        "checkout_url": f"{checkout_base_url}/checkout/{charge.id}",
        "return_url": charge.return_url,
        "cancel_url": charge.cancel_url,
        "customer_email": charge.customer_email,
        "expires_at": unix_seconds(charge.expires_at),
        "created": unix_seconds(charge.created),
        "livemode": charge.livemode,
        "amount_refunded": charge.amount_refunded,
        "refunds": [refund_view(r) for r in charge.refunds],
    }
    if charge.invoice_id is not None:
        view["invoice"] = charge.invoice_id
    if charge.payment_method is not None:
        view["payment_method"] = charge.payment_method.value
    details = payment_method_details_view(charge)
    if details is not None:
        view["payment_method_details"] = details
    if charge.amount_captured is not None:
        view["amount_captured"] = charge.amount_captured
        view["fee"] = charge.fee
        view["net"] = charge.net
    if charge.captured_at is not None:
        view["captured_at"] = unix_seconds(charge.captured_at)
    if charge.refunded_at is not None:
        view["refunded_at"] = unix_seconds(charge.refunded_at)
    if charge.disputed_at is not None:
        view["disputed_at"] = unix_seconds(charge.disputed_at)
    if charge.failure_code is not None:
        view["failure_code"] = charge.failure_code
    if charge.transaction_id is not None:
        view["transaction_id"] = charge.transaction_id
    if charge.dispute is not None:
        view["dispute"] = dispute_view(charge.dispute)
    return view


def capture_view(charge: Charge) -> JSON:
    """DESIGN §5a: the capture result is a view of the charge whose `amount` is the amount captured."""
    return {
        "id": charge.id,
        "object": "charge",
        "status": charge.status.value,
        "amount": charge.amount_captured,
        "amount_captured": charge.amount_captured,
        "currency": charge.currency,
        "fee": charge.fee,
        "net": charge.net,
        "captured_at": unix_seconds(charge.captured_at) if charge.captured_at is not None else None,
        "livemode": charge.livemode,
    }


def to_json(view: JSON) -> str:
    """Compact JSON text, as it travels to the gateway inside the gRPC answers."""
    return compact_json(view)


@dataclass(frozen=True, slots=True)
class ChargeViews:
    """Renders charges with this deployment's checkout address, for answers and event payloads alike."""

    checkout_base_url: str

    def charge(self, charge: Charge) -> JSON:
        return charge_view(charge, self.checkout_base_url)

    def events(self, charge: Charge) -> list[OutboxEvent]:
        """The charge's pending events; `data.object` is the charge as it stands after the turn."""
        if not charge.pending_events:
            return []
        return render_events(charge.pending_events, self.charge(charge), livemode=charge.livemode)
