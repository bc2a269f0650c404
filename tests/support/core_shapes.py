"""Charges, refunds, disputes, events, merchants and API keys as the core sends them, for tests.

The gateway answers the public object the core rendered (`object_json`), so a test never writes a pb
charge by hand: it makes a domain `Charge` the way the core does (a validated draft, then the spec's
transitions) and converts it with the core's own mapping. Tests may import the core; the gateway may not.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from connect.v1 import api_key_pb2, charge_pb2, charge_service_pb2, merchant_pb2, webhook_pb2

from core_server.kernel.domain.environment import Environment
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import Merchant, Profile
from core_server.merchants.transport.mapping import api_key_to_pb, merchant_to_pb
from core_server.payments.application.charge_view import ChargeViews
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.charge_input import validate_charge_draft
from core_server.payments.domain.checkout import describe_payment, parse_attempt
from core_server.payments.domain.dispute import Dispute
from core_server.payments.domain.payment import PaymentMethodType
from core_server.payments.domain.refund import Refund
from core_server.payments.domain.sandbox import PAYPAL_SUCCESS, simulate_card, simulate_paypal
from core_server.payments.transport.mapping import capture_answer, charge_to_pb, dispute_to_pb, refund_to_pb
from core_server.webhooks.domain.events import StoredEvent
from core_server.webhooks.transport.webhook_mapping import event_to_pb

CHECKOUT_BASE_URL = "http://checkout.test"
VIEWS = ChargeViews(CHECKOUT_BASE_URL)
NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
NOW_UNIX = int(NOW.timestamp())
MERCHANT_ID = "acct_test"
CHARGE_ID = "ch_" + "a" * 32
RETURN_URL = "https://shop.example/ok"
CARD_NUMBER = "4242424242424242"
DECLINED_CARD_NUMBER = "4000000000000002"
FINGERPRINT_KEY = b"k" * 32


# Domain charges, made through the core's validation and transitions.


def new_charge(
    charge_id: str = CHARGE_ID,
    *,
    amount: int = 5000,
    currency: str = "usd",
    return_url: str = RETURN_URL,
    description: str | None = None,
    metadata: dict[str, str] | None = None,
    cancel_url: str | None = None,
    customer_email: str | None = None,
    livemode: bool = False,
) -> Charge:
    """A pending charge, as the create-charge command makes it (event `charge.created`)."""
    draft = validate_charge_draft(
        amount=amount,
        currency=currency,
        return_url=return_url,
        description=description,
        metadata=metadata or {},
        cancel_url=cancel_url,
        customer_email=customer_email,
    )
    environment = Environment.LIVE if livemode else Environment.TEST
    return Charge.create(charge_id, MERCHANT_ID, environment, draft, NOW)


def pay_by_card(
    charge: Charge, number: str = CARD_NUMBER, exp_month: int = 12, exp_year: int = 2030
) -> Charge:
    """Checkout completion with a sandbox card: 4242… authorizes, the listed test cards decline."""
    card = CardInput(number, exp_month, exp_year, "123")
    attempt = parse_attempt("card", card, None, NOW)
    charge.complete(
        PaymentMethodType.CARD, describe_payment(attempt, FINGERPRINT_KEY), simulate_card(card), NOW
    )
    return charge


def pay_by_paypal(charge: Charge, email: str = PAYPAL_SUCCESS) -> Charge:
    attempt = parse_attempt("paypal", None, email, NOW)
    details = describe_payment(attempt, FINGERPRINT_KEY)
    charge.complete(PaymentMethodType.PAYPAL, details, simulate_paypal(email), NOW)
    return charge


def authorized(charge_id: str = CHARGE_ID, **fields) -> Charge:
    return pay_by_card(new_charge(charge_id, **fields))


def captured(charge_id: str = CHARGE_ID, *, capture: int | None = None, **fields) -> Charge:
    """An authorized card charge captured in full, or for `capture` (a partial capture)."""
    charge = authorized(charge_id, **fields)
    charge.capture(capture, NOW)
    return charge


def fully_populated(charge_id: str = CHARGE_ID) -> Charge:
    """Every stage a charge can carry at once: card payment, capture, a refund with a reason and one
    without (partially refunded), then a dispute."""
    charge = captured(
        charge_id,
        amount=10_000,
        description="Shoes",
        metadata={"order": "42"},
        cancel_url="https://shop.example/cancel",
        customer_email="buyer@example.com",
    )
    charge.refund("re_" + "1" * 32, 1000, "customer_request", NOW)
    charge.refund("re_" + "2" * 32, 500, None, NOW)
    charge.open_dispute("dp_" + "1" * 32, NOW)
    return charge


def in_status(status: ChargeStatus, charge_id: str = CHARGE_ID) -> Charge:
    """A charge brought to `status` by the spec's transitions (and timers) only."""
    if status is ChargeStatus.PENDING:
        return new_charge(charge_id)
    if status is ChargeStatus.EXPIRED:
        charge = new_charge(charge_id)
        charge.expire_if_due(charge.expires_at)
        return charge
    if status is ChargeStatus.FAILED:
        return pay_by_card(new_charge(charge_id), DECLINED_CARD_NUMBER)
    if status is ChargeStatus.AUTHORIZED:
        return authorized(charge_id)
    if status is ChargeStatus.VOIDED:
        charge = authorized(charge_id)
        charge.void(NOW + timedelta(minutes=1))
        return charge
    charge = captured(charge_id)
    if status is ChargeStatus.CAPTURED:
        return charge
    if status is ChargeStatus.PARTIALLY_REFUNDED:
        charge.refund("re_" + "1" * 32, 1000, None, NOW)
    elif status is ChargeStatus.REFUNDED:
        charge.refund("re_" + "1" * 32, None, "duplicate", NOW)
    elif status is ChargeStatus.DISPUTED:
        charge.open_dispute("dp_" + "1" * 32, NOW)
    assert charge.status is status, f"no path to {status}"
    return charge


# The same, as the core's gRPC answers carry them.


def charge_pb(charge: Charge) -> charge_pb2.Charge:
    return charge_to_pb(charge, VIEWS)


def capture_pb(charge: Charge) -> charge_service_pb2.CaptureChargeResponse:
    """The capture answer: the charge, and the capture result the REST API shows."""
    return capture_answer(charge, VIEWS)


def refund_pb(refund: Refund) -> charge_pb2.Refund:
    return refund_to_pb(refund)


def dispute_pb(dispute: Dispute) -> charge_pb2.Dispute:
    return dispute_to_pb(dispute)


def charge_with_id(charge_id: str) -> charge_pb2.Charge:
    """For tests that need any valid charge answer with a given id: a new pending charge."""
    return charge_pb(new_charge(charge_id))


def events_pb(charge: Charge) -> list[webhook_pb2.Event]:
    """The charge's pending events as the core logs and serves them (`data.object` is the charge)."""
    return [
        event_to_pb(
            StoredEvent(
                id=event.id,
                merchant_id=charge.merchant_id,
                environment=charge.environment,
                type=event.type,
                created=event.created_at,
                payload=event.payload,
            )
        )
        for event in VIEWS.events(charge)
    ]


def merchant_message(
    merchant_id: str = "acct_1", email: str = "m@example.com", **profile: str
) -> merchant_pb2.Merchant:
    """A merchant as the core answers it (its typed fields and its rendering), created at Unix second 1."""
    created = datetime.fromtimestamp(1, UTC)
    return merchant_to_pb(Merchant(merchant_id, email, "hash", Profile(**profile), created))


def api_key_message(
    key_id: str = "key_1", *, secret: str | None = None, last4: str = "st_s", revoked_at: int | None = None
) -> api_key_pb2.ApiKey:
    """A TEST key as the core answers it, created at Unix second 2; `secret` only as creation returns it."""
    key = ApiKey(
        id=key_id,
        merchant_id=MERCHANT_ID,
        name="srv",
        environment=Environment.TEST,
        publishable_key="pk_test_p",
        secret_key_last4=last4,
        created=datetime.fromtimestamp(2, UTC),
        revoked_at=datetime.fromtimestamp(revoked_at, UTC) if revoked_at is not None else None,
        secret_key=secret,
    )
    return api_key_to_pb(key)
