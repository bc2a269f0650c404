"""The public JSON shape of a charge, as carried in `data.object` of charge events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core_server.domain.charge import Charge
from core_server.domain.dispute import Dispute
from core_server.domain.payment import CardDetails, PaypalDetails
from core_server.domain.refund import Refund


def unix(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp())


def refund_view(refund: Refund) -> dict[str, Any]:
    return {
        "id": refund.id,
        "object": "refund",
        "charge": refund.charge_id,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status,
        "reason": refund.reason,
        "created": unix(refund.created),
    }


def dispute_view(dispute: Dispute) -> dict[str, Any]:
    return {
        "id": dispute.id,
        "object": "dispute",
        "charge": dispute.charge_id,
        "amount": dispute.amount,
        "currency": dispute.currency,
        "status": dispute.status,
        "fee": dispute.fee,
        "created": unix(dispute.created),
    }


def charge_view(charge: Charge, checkout_base_url: str) -> dict[str, Any]:
    """Same field names as the REST API's charge object (the gateway renders it from protobuf)."""
    view: dict[str, Any] = {
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
        "expires_at": unix(charge.expires_at),
        "created": unix(charge.created),
        "livemode": charge.livemode,
        "amount_refunded": charge.amount_refunded,
        "refunds": [refund_view(r) for r in charge.refunds],
        "payment_method": charge.payment_method.value if charge.payment_method else None,
    }
    details = charge.payment_details
    if isinstance(details, CardDetails):
        view["payment_method_details"] = {
            "type": "card",
            "card": {
                "brand": details.brand,
                "last4": details.last4,
                "exp_month": details.exp_month,
                "exp_year": details.exp_year,
                "funding": details.funding,
                "country": details.country,
            },
        }
    elif isinstance(details, PaypalDetails):
        view["payment_method_details"] = {"type": "paypal", "paypal": {"email": details.email}}
    if charge.amount_captured is not None:
        view.update(
            amount_captured=charge.amount_captured,
            fee=charge.fee,
            net=charge.net,
            captured_at=unix(charge.captured_at),
        )
    if charge.refunded_at is not None:
        view["refunded_at"] = unix(charge.refunded_at)
    if charge.disputed_at is not None:
        view["disputed_at"] = unix(charge.disputed_at)
    if charge.dispute is not None:
        view["dispute"] = dispute_view(charge.dispute)
    if charge.failure_code is not None:
        view["failure_code"] = charge.failure_code
    return view
