"""Domain ⇄ protobuf conversion: the only module that knows both."""

from __future__ import annotations

from datetime import datetime

from connect.v1 import (
    api_key_pb2,
    charge_pb2,
    checkout_pb2,
    common_pb2,
    merchant_pb2,
)

from core_server.application.charge_commands import CheckoutResult, Owner
from core_server.application.checkout import CheckoutPage
from core_server.application.ports import IdempotencyRequest
from core_server.domain.api_key import ApiKey
from core_server.domain.card import CardInput
from core_server.domain.charge import Charge, ChargeStatus
from core_server.domain.dispute import Dispute
from core_server.domain.environment import Environment
from core_server.domain.errors import ParameterInvalid, Unauthenticated
from core_server.domain.merchant import Merchant
from core_server.domain.payment import CardDetails, PaymentMethodType, PaypalDetails
from core_server.domain.refund import Refund

ENVIRONMENT_TO_PB = {
    Environment.LIVE: common_pb2.ENVIRONMENT_LIVE,
    Environment.TEST: common_pb2.ENVIRONMENT_TEST,
}
ENVIRONMENT_FROM_PB = {v: k for k, v in ENVIRONMENT_TO_PB.items()}
STATUS_TO_PB = {status: charge_pb2.ChargeStatus.Value(f"CHARGE_STATUS_{status.name}") for status in ChargeStatus}
STATUS_FROM_PB = {v: k for k, v in STATUS_TO_PB.items()}
METHOD_TO_PB = {
    PaymentMethodType.CARD: charge_pb2.PAYMENT_METHOD_TYPE_CARD,
    PaymentMethodType.PAYPAL: charge_pb2.PAYMENT_METHOD_TYPE_PAYPAL,
}
SCHEDULE_TO_PB = {
    "daily": merchant_pb2.PAYOUT_SCHEDULE_DAILY,
    "weekly": merchant_pb2.PAYOUT_SCHEDULE_WEEKLY,
    "monthly": merchant_pb2.PAYOUT_SCHEDULE_MONTHLY,
}
SCHEDULE_FROM_PB = {v: k for k, v in SCHEDULE_TO_PB.items()}


def unix(moment: datetime) -> int:
    return int(moment.timestamp())


def environment_from_pb(value: int) -> Environment:
    try:
        return ENVIRONMENT_FROM_PB[value]
    except KeyError:
        raise ParameterInvalid("environment must be 'live' or 'test'.", param="environment") from None


def owner_from_caller(caller: common_pb2.Caller) -> Owner:
    """The gateway always sets the caller; a call without one is not authenticated."""
    if not caller.merchant_id or caller.environment not in ENVIRONMENT_FROM_PB:
        raise Unauthenticated("The call carries no merchant.", code="caller_missing")
    return Owner(caller.merchant_id, ENVIRONMENT_FROM_PB[caller.environment])


def api_scope(owner: Owner) -> str:
    return f"{owner.merchant_id}:{owner.environment.value}"


def idempotency_from_pb(scope: str, idem: common_pb2.Idempotency) -> IdempotencyRequest | None:
    if not idem.key:
        return None
    return IdempotencyRequest(scope=scope, key=idem.key, fingerprint=idem.fingerprint)


def refund_to_pb(refund: Refund) -> charge_pb2.Refund:
    pb = charge_pb2.Refund(
        id=refund.id,
        charge=refund.charge_id,
        amount=refund.amount,
        currency=refund.currency,
        status=refund.status,
        created=unix(refund.created),
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
        created=unix(dispute.created),
    )


def charge_to_pb(charge: Charge, checkout_base_url: str) -> charge_pb2.Charge:
    pb = charge_pb2.Charge(
        id=charge.id,
        amount=charge.amount,
        currency=charge.currency,
        status=STATUS_TO_PB[charge.status],
        metadata=charge.metadata,
        checkout_url=f"{checkout_base_url}/checkout/{charge.id}",
        return_url=charge.return_url,
        expires_at=unix(charge.expires_at),
        created=unix(charge.created),
        livemode=charge.livemode,
        amount_refunded=charge.amount_refunded,
        refunds=[refund_to_pb(r) for r in charge.refunds],
    )
    for name in ("description", "cancel_url", "customer_email", "transaction_id", "failure_code",
                 "amount_captured", "fee", "net"):
        value = getattr(charge, name)
        if value is not None:
            setattr(pb, name, value)
    for name in ("captured_at", "refunded_at", "disputed_at"):
        moment = getattr(charge, name)
        if moment is not None:
            setattr(pb, name, unix(moment))
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
    pb.expires_at = unix(charge.expires_at)
    pb.test_mode = not charge.livemode
    pb.metadata.update(charge.metadata)
    if page.merchant_logo_url:
        pb.merchant_logo_url = page.merchant_logo_url
    if page.merchant_brand_color:
        pb.merchant_brand_color = page.merchant_brand_color
    if page.merchant_support_email:
        pb.merchant_support_email = page.merchant_support_email
    return pb


def merchant_to_pb(merchant: Merchant) -> merchant_pb2.Merchant:
    profile = merchant.profile
    return merchant_pb2.Merchant(
        id=merchant.id,
        email=merchant.email,
        business_name=profile.business_name,
        logo_url=profile.logo_url,
        brand_color=profile.brand_color,
        support_email=profile.support_email,
        payout_schedule=SCHEDULE_TO_PB.get(profile.payout_schedule, merchant_pb2.PAYOUT_SCHEDULE_DAILY),
        created=unix(merchant.created),
    )


def api_key_to_pb(key: ApiKey) -> api_key_pb2.ApiKey:
    pb = api_key_pb2.ApiKey(
        id=key.id,
        name=key.name,
        publishable_key=key.publishable_key,
        secret_key=key.secret_key or "",
        secret_key_last4=key.secret_key_last4,
        environment=ENVIRONMENT_TO_PB[key.environment],
        created=unix(key.created),
        revoked=key.revoked,
    )
    if key.revoked_at is not None:
        pb.revoked_at = unix(key.revoked_at)
    return pb
