"""Mapping between charge rows and the domain Charge."""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from core_server.kernel.domain.environment import Environment
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.payment import CardDetails, PaymentDetails, PaymentMethodType, PaypalDetails
from core_server.payments.domain.refund import Refund


def details_to_json(details: PaymentDetails | None) -> Jsonb | None:
    if isinstance(details, CardDetails):
        return Jsonb(
            {
                "brand": details.brand,
                "last4": details.last4,
                "exp_month": details.exp_month,
                "exp_year": details.exp_year,
                "funding": details.funding,
                "country": details.country,
                "fingerprint": details.fingerprint,
            }
        )
    if isinstance(details, PaypalDetails):
        return Jsonb({"email": details.email})
    return None


def details_from_json(method: str | None, data: dict[str, Any] | None) -> PaymentDetails | None:
    if method is None or data is None:
        return None
    if method == PaymentMethodType.CARD.value:
        return CardDetails(**data)
    return PaypalDetails(email=data["email"])


def charge_params(charge: Charge) -> dict[str, Any]:
    return {
        "id": charge.id,
        "merchant_id": charge.merchant_id,
        "environment": charge.environment.value,
        "amount": charge.amount,
        "currency": charge.currency,
        "status": charge.status.value,
        "description": charge.description,
        "metadata": Jsonb(charge.metadata),
        "return_url": charge.return_url,
        "cancel_url": charge.cancel_url,
        "customer_email": charge.customer_email,
        "idempotency_key": charge.idempotency_key,
        "invoice_id": charge.invoice_id,
        "invoice_attempt": charge.invoice_attempt,
        "tax_amount_cents": charge.tax,
        "payment_method": charge.payment_method.value if charge.payment_method else None,
        "payment_details": details_to_json(charge.payment_details),
        "transaction_id": charge.transaction_id,
        "failure_code": charge.failure_code,
        "authorized_at": charge.authorized_at,
        "authorization_due_at": charge.authorization_due_at,
        "amount_captured": charge.amount_captured,
        "fee_amount_cents": charge.fee or 0,
        "net_amount_cents": charge.net,
        "captured_at": charge.captured_at,
        "amount_refunded": charge.amount_refunded,
        "refunded_at": charge.refunded_at,
        "voided_at": charge.voided_at,
        "disputed_at": charge.disputed_at,
        "expires_at": charge.expires_at,
        "created_at": charge.created,
    }


def refund_from_row(row: dict[str, Any]) -> Refund:
    return Refund(
        id=row["id"],
        charge_id=row["charge_id"],
        amount=row["amount"],
        currency=row["currency"],
        reason=row["reason"],
        created=row["created_at"],
        status=row["status"],
    )


def dispute_from_row(row: dict[str, Any]) -> Dispute:
    return Dispute(
        id=row["id"],
        charge_id=row["charge_id"],
        amount=row["amount"],
        currency=row["currency"],
        status=row["status"],
        created=row["created_at"],
        fee=row["fee"],
        prior_status=row["prior_status"],
    )


def charge_from_row(row: dict[str, Any], refunds: list[Refund], dispute: Dispute | None) -> Charge:
    captured = row["amount_captured"]
    return Charge(
        id=row["id"],
        merchant_id=row["merchant_id"],
        environment=Environment(row["environment"]),
        amount=row["amount"],
        currency=row["currency"],
        status=ChargeStatus(row["status"]),
        return_url=row["return_url"],
        created=row["created_at"],
        expires_at=row["expires_at"],
        description=row["description"],
        metadata=dict(row["metadata"]),
        cancel_url=row["cancel_url"],
        customer_email=row["customer_email"],
        idempotency_key=row["idempotency_key"],
        invoice_id=row["invoice_id"],
        invoice_attempt=row["invoice_attempt"],
        tax=row["tax_amount_cents"],
        payment_method=PaymentMethodType(row["payment_method"]) if row["payment_method"] else None,
        payment_details=details_from_json(row["payment_method"], row["payment_details"]),
        transaction_id=row["transaction_id"],
        failure_code=row["failure_code"],
        authorized_at=row["authorized_at"],
        authorization_due_at=row["authorization_due_at"],
        amount_captured=captured,
        fee=row["fee_amount_cents"] if captured is not None else None,
        net=row["net_amount_cents"],
        captured_at=row["captured_at"],
        amount_refunded=row["amount_refunded"],
        refunded_at=row["refunded_at"],
        voided_at=row["voided_at"],
        disputed_at=row["disputed_at"],
        refunds=refunds,
        dispute=dispute,
    )
