"""Charge and checkout domain ⇄ protobuf conversion."""

from __future__ import annotations

from connect.v1 import (
    charge_pb2,
    charge_service_pb2,
    checkout_pb2,
)

from core_server.kernel.domain.public_json import unix_seconds
from core_server.payments.application.charge_commands import CheckoutResult
from core_server.payments.application.charge_view import (
    ChargeViews,
    capture_view,
    dispute_view,
    refund_view,
    to_json,
)
from core_server.payments.application.checkout import CheckoutPage
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.payment import CardDetails, PaymentMethodType, PaypalDetails
from core_server.payments.domain.refund import Refund

STATUS_TO_PB = {
    status: charge_pb2.ChargeStatus.Value(f"CHARGE_STATUS_{status.name}") for status in ChargeStatus
}


STATUS_FROM_PB = {v: k for k, v in STATUS_TO_PB.items()}


METHOD_TO_PB = {
    PaymentMethodType.CARD: charge_pb2.PAYMENT_METHOD_TYPE_CARD,
    PaymentMethodType.PAYPAL: charge_pb2.PAYMENT_METHOD_TYPE_PAYPAL,
}


def refund_to_pb(refund: Refund) -> charge_pb2.Refund:
    pb = charge_pb2.Refund(
        id=refund.id,
        charge=refund.charge_id,
        amount=refund.amount,
        currency=refund.currency,
        status=refund.status,
        created=unix_seconds(refund.created),
        object_json=to_json(refund_view(refund)),
    )
    if refund.reason is not None:
        pb.reason = refund.reason
    return pb


def dispute_to_pb(dispute: Dispute) -> charge_pb2.Dispute:
    return charge_pb2.Dispute(
        id=dispute.id,
        charge=dispute.charge_id,
        amount=dispute.amount,
        currency=dispute.currency,
        status=dispute.status,
        fee=dispute.fee,
        created=unix_seconds(dispute.created),
        object_json=to_json(dispute_view(dispute)),
    )


def charge_to_pb(charge: Charge, views: ChargeViews) -> charge_pb2.Charge:
    """Typed fields for internal services, and the public object as JSON for the REST API."""
    view = views.charge(charge)
    pb = charge_pb2.Charge(
        id=charge.id,
        amount=charge.amount,
        currency=charge.currency,
        status=STATUS_TO_PB[charge.status],
        metadata=charge.metadata,
        checkout_url=view["checkout_url"],
        object_json=to_json(view),
        return_url=charge.return_url,
        expires_at=unix_seconds(charge.expires_at),
        created=unix_seconds(charge.created),
        livemode=charge.livemode,
        amount_refunded=charge.amount_refunded,
        refunds=[refund_to_pb(r) for r in charge.refunds],
    )
    for name in (
        "description",
        "cancel_url",
        "customer_email",
        "transaction_id",
        "failure_code",
        "amount_captured",
        "fee",
        "net",
    ):
        value = getattr(charge, name)
        if value is not None:
            setattr(pb, name, value)
    for name in ("captured_at", "refunded_at", "disputed_at"):
        moment = getattr(charge, name)
        if moment is not None:
            setattr(pb, name, unix_seconds(moment))
    if charge.payment_method is not None:
        pb.payment_method = METHOD_TO_PB[charge.payment_method]
    details = charge.payment_details
    if isinstance(details, CardDetails):
        pb.card.CopyFrom(
            charge_pb2.CardDetails(
                brand=details.brand,
                last4=details.last4,
                exp_month=details.exp_month,
                exp_year=details.exp_year,
                funding=details.funding,
                country=details.country,
                fingerprint=details.fingerprint,
            )
        )
    elif isinstance(details, PaypalDetails):
        pb.paypal.email = details.email
    if charge.dispute is not None:
        pb.dispute.CopyFrom(dispute_to_pb(charge.dispute))
    return pb


def capture_answer(charge: Charge, views: ChargeViews) -> charge_service_pb2.CaptureChargeResponse:
    """The charge, and the capture result the REST API answers (a view of it, DESIGN §5a)."""
    return charge_service_pb2.CaptureChargeResponse(
        charge=charge_to_pb(charge, views), object_json=to_json(capture_view(charge))
    )


def card_from_pb(card: checkout_pb2.CardInput, present: bool) -> CardInput | None:
    if not present:
        return None
    return CardInput(number=card.card_number, exp_month=card.exp_month, exp_year=card.exp_year, cvc=card.cvc)


def checkout_result_to_pb(result: CheckoutResult) -> checkout_pb2.CheckoutResult:
    return checkout_pb2.CheckoutResult(
        success=result.success,
        charge_id=result.charge_id,
        status=result.status,
        redirect_url=result.redirect_url,
        error_code=result.error_code or "",
        error_message=result.error_message or "",
        test_mode=result.test_mode,
    )


def checkout_page_to_pb(page: CheckoutPage) -> checkout_pb2.CheckoutPage:
    pb = checkout_pb2.CheckoutPage(
        charge_id=page.charge_id, valid=page.valid, error_message=page.error_message or ""
    )
    charge = page.charge
    if charge is None:
        return pb
    pb.found = True
    pb.amount_cents = charge.amount
    pb.currency = charge.currency.upper()
    pb.formatted_amount = page.formatted_amount
    pb.description = charge.description or ""
    pb.merchant_name = page.merchant_name
    pb.return_url = charge.return_url
    pb.cancel_url = charge.failure_redirect_url
    pb.available_payment_methods.extend(page.payment_methods)
    pb.status = STATUS_TO_PB[charge.status]
    pb.expires_at = unix_seconds(charge.expires_at)
    pb.test_mode = not charge.livemode
    pb.metadata.update(charge.metadata)
    if page.merchant_logo_url:
        pb.merchant_logo_url = page.merchant_logo_url
    if page.merchant_brand_color:
        pb.merchant_brand_color = page.merchant_brand_color
    if page.merchant_support_email:
        pb.merchant_support_email = page.merchant_support_email
    return pb
