"""The charge's one public shape, tested where it is rendered: `charge_view` in the core.

The REST answers (the `object_json` of the gRPC messages, which the gateway passes on as is) and the
`data.object` of every charge event come from the same rendering; the last tests hold that, down to the
text the gateway answers for the message.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from core_server.kernel.domain.environment import Environment
from core_server.payments.application.charge_view import ChargeViews, charge_view
from core_server.payments.domain.card import CardInput
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.charge_input import validate_charge_draft
from core_server.payments.domain.checkout import describe_payment, parse_attempt
from core_server.payments.domain.events import ChargeEventType
from core_server.payments.domain.payment import PaymentMethodType
from core_server.payments.domain.sandbox import simulate_card, simulate_paypal
from core_server.payments.transport.mapping import charge_to_pb
from core_server.webhooks.domain.events import event_body
from http_gateway.payments.serializers import CHARGE_STATUS_NAMES, PAYMENT_METHOD_NAMES

BASE = "http://checkout.test"
VIEWS = ChargeViews(BASE)
NOW = datetime(2026, 11, 22, 12, 0, 0, 123456, tzinfo=UTC)
CREATED = int(NOW.replace(microsecond=0).timestamp())
LATER = NOW + timedelta(minutes=5)
CHARGE_ID = "ch_" + "a" * 32
CARD = {
    "brand": "visa",
    "last4": "4242",
    "exp_month": 12,
    "exp_year": 2030,
    "funding": "credit",
    "country": "US",
}


def new_charge(**fields: object) -> Charge:
    request: dict[str, object] = {
        "amount": 5000,
        "currency": "usd",
        "return_url": "https://shop.example/ok",
        "description": None,
        "metadata": {"order": "42"},
        "cancel_url": None,
        "customer_email": None,
    }
    draft = validate_charge_draft(**{**request, **fields})  # type: ignore[arg-type]
    return Charge.create(CHARGE_ID, "acct_1", Environment.TEST, draft, NOW)


def paid_by_card(number: str = "4242424242424242", **fields: object) -> Charge:
    charge = new_charge(**fields)
    card = CardInput(number, 12, 2030, "123")
    attempt = parse_attempt("card", card, None, NOW)
    charge.complete(PaymentMethodType.CARD, describe_payment(attempt, b"k" * 32), simulate_card(card), NOW)
    return charge


def paid_by_paypal(email: str = "buyer@example.com") -> Charge:
    charge = new_charge()
    attempt = parse_attempt("paypal", None, email, NOW)
    details = describe_payment(attempt, b"k" * 32)
    charge.complete(PaymentMethodType.PAYPAL, details, simulate_paypal(email), NOW)
    return charge


def captured(amount: int = 5000) -> Charge:
    charge = paid_by_card(amount=amount)
    charge.capture(None, LATER)
    return charge


def test_a_new_charge_has_nulls_for_absent_optionals_and_an_empty_refund_list() -> None:
    assert VIEWS.charge(new_charge()) == {
        "id": CHARGE_ID,
        "object": "charge",
        "amount": 5000,
        "currency": "usd",
        "status": "pending",
        "description": None,
        "metadata": {"order": "42"},
        "checkout_url": f"{BASE}/checkout/{CHARGE_ID}",
        "return_url": "https://shop.example/ok",
        "cancel_url": None,
        "customer_email": None,
        "expires_at": CREATED + 24 * 3600,
        "created": CREATED,
        "livemode": False,
        "amount_refunded": 0,
        "refunds": [],
    }


def test_given_optionals_are_shown() -> None:
    view = VIEWS.charge(
        new_charge(description="Shoes", cancel_url="https://shop.example/no", customer_email="a@b.example")
    )
    shown = (view["description"], view["cancel_url"], view["customer_email"])
    assert shown == ("Shoes", "https://shop.example/no", "a@b.example")


def test_checkout_url_is_the_base_then_checkout_then_the_id() -> None:
    charge = new_charge()
    assert (
        charge_view(charge, "https://pay.example")["checkout_url"]
        == f"https://pay.example/checkout/{CHARGE_ID}"
    )
    assert charge_to_pb(charge, VIEWS).checkout_url == f"{BASE}/checkout/{CHARGE_ID}"


def test_an_authorized_charge_shows_the_payment_but_no_capture_fields() -> None:
    view = VIEWS.charge(paid_by_card())
    assert (view["status"], view["payment_method"]) == ("authorized", "card")
    assert view["transaction_id"].startswith("sandbox_txn_")
    absent = {"amount_captured", "fee", "net", "captured_at", "refunded_at", "disputed_at", "failure_code"}
    assert not absent & set(view)


def test_a_captured_card_charge_shows_payment_and_capture_fields() -> None:
    charge = captured(5000)
    charge.refund("re_1", 1000, None, LATER)
    view = VIEWS.charge(charge)
    assert view["status"] == "partially_refunded"
    assert view["payment_method"] == "card"
    assert view["payment_method_details"] == {"type": "card", "card": CARD}
    assert (view["amount_captured"], view["fee"], view["net"]) == (5000, 175, 4825)
    assert view["captured_at"] == int(LATER.timestamp())
    assert view["amount_refunded"] == 1000
    assert view["transaction_id"] == charge.transaction_id
    assert view["refunds"][0]["object"] == "refund" and view["refunds"][0]["reason"] is None
    assert "dispute" not in view and "refunded_at" not in view and "failure_code" not in view


def test_the_card_fingerprint_is_never_shown() -> None:
    charge = captured()
    assert charge.payment_details is not None and charge.payment_details.fingerprint  # type: ignore[union-attr]
    text = charge_to_pb(charge, VIEWS).object_json
    assert "fingerprint" not in text and charge.payment_details.fingerprint not in text  # type: ignore[union-attr]


def test_paypal_details() -> None:
    view = VIEWS.charge(paid_by_paypal())
    assert view["payment_method"] == "paypal"
    assert view["payment_method_details"] == {"type": "paypal", "paypal": {"email": "buyer@example.com"}}


def test_a_declined_payment_shows_its_failure_code_and_no_capture() -> None:
    view = VIEWS.charge(paid_by_card("4000000000009995"))
    assert (view["status"], view["failure_code"], view["payment_method"]) == (
        "failed",
        "insufficient_funds",
        "card",
    )
    assert "amount_captured" not in view


def test_a_full_refund_shows_refunded_at() -> None:
    charge = captured()
    charge.refund("re_1", None, "duplicate", LATER)
    view = VIEWS.charge(charge)
    assert (view["status"], view["amount_refunded"], view["refunded_at"]) == (
        "refunded",
        5000,
        int(LATER.timestamp()),
    )


def test_refund_reason_is_shown_when_given_and_null_otherwise() -> None:
    charge = captured()
    charge.refund("re_1", 100, "duplicate", LATER)
    charge.refund("re_2", 100, None, LATER)
    assert VIEWS.charge(charge)["refunds"] == [
        {
            "id": "re_1",
            "object": "refund",
            "charge": CHARGE_ID,
            "amount": 100,
            "currency": "usd",
            "status": "succeeded",
            "reason": "duplicate",
            "created": int(LATER.replace(microsecond=0).timestamp()),
        },
        {
            "id": "re_2",
            "object": "refund",
            "charge": CHARGE_ID,
            "amount": 100,
            "currency": "usd",
            "status": "succeeded",
            "reason": None,
            "created": int(LATER.replace(microsecond=0).timestamp()),
        },
    ]


def test_the_dispute_object() -> None:
    charge = captured(5000)
    charge.refund("re_1", 1000, None, LATER)
    charge.open_dispute("dp_1", LATER)
    view = VIEWS.charge(charge)
    assert (view["status"], view["disputed_at"]) == ("disputed", int(LATER.timestamp()))
    assert view["dispute"] == {
        "id": "dp_1",
        "object": "dispute",
        "charge": CHARGE_ID,
        "amount": 4000,  # captured - refunded
        "currency": "usd",
        "status": "needs_response",
        "fee": 1500,
        "created": int(LATER.replace(microsecond=0).timestamp()),
    }
    charge.close_dispute("won", NOW)
    view = VIEWS.charge(charge)
    assert (view["status"], view["dispute"]["status"]) == ("partially_refunded", "won")


def _with_event(event_type: ChargeEventType) -> Charge:
    """A charge whose pending events include `event_type`."""
    if event_type is ChargeEventType.CREATED:
        return new_charge()
    if event_type is ChargeEventType.COMPLETED:
        return paid_by_card()
    if event_type is ChargeEventType.FAILED:
        return paid_by_card("4000000000000002")
    charge = captured()
    if event_type is ChargeEventType.REFUNDED:
        charge.refund("re_1", 1000, "customer_request", LATER)
    else:
        charge.open_dispute("dp_1", LATER)
    return charge


@pytest.mark.parametrize("event_type", list(ChargeEventType), ids=lambda t: t.value)
def test_every_charge_event_carries_the_object_the_rest_api_answers(event_type: ChargeEventType) -> None:
    charge = _with_event(event_type)
    pb = charge_to_pb(charge, VIEWS)
    rest = json.loads(pb.object_json)
    answered = json.loads(pb.object_json)  # the gateway answers these bytes as they are
    events = VIEWS.events(charge)
    assert event_type.value in [e.type for e in events]
    for event in events:
        webhook = event.payload["data"]["object"]
        delivered = json.loads(event_body(event.payload))["data"]["object"]
        assert list(webhook) == list(rest) == list(answered) == list(delivered)
        for key in rest:
            assert webhook[key] == rest[key] == answered[key] == delivered[key], key
    assert [json.loads(r.object_json) for r in pb.refunds] == rest["refunds"]
    if "dispute" in rest:
        assert json.loads(pb.dispute.object_json) == rest["dispute"]


@pytest.mark.parametrize("event_type", list(ChargeEventType), ids=lambda t: t.value)
def test_the_typed_fields_agree_with_the_rendering(event_type: ChargeEventType) -> None:
    """Internal services read the typed fields; the public object must say the same."""
    pb = charge_to_pb(_with_event(event_type), VIEWS)
    view = json.loads(pb.object_json)
    assert CHARGE_STATUS_NAMES[pb.status] == view["status"]
    assert PAYMENT_METHOD_NAMES[pb.payment_method] == view.get("payment_method")
    same = ("id", "amount", "currency", "checkout_url", "return_url", "expires_at", "created", "livemode")
    assert {k: getattr(pb, k) for k in same} == {k: view[k] for k in same}
    assert dict(pb.metadata) == view["metadata"] and pb.amount_refunded == view["amount_refunded"]
    for name in ("description", "cancel_url", "customer_email"):
        assert (getattr(pb, name) if pb.HasField(name) else None) == view[name]
    for name in (
        "amount_captured",
        "fee",
        "net",
        "captured_at",
        "disputed_at",
        "failure_code",
        "transaction_id",
    ):
        assert (getattr(pb, name) if pb.HasField(name) else None) == view.get(name), name
    if pb.HasField("card"):
        card = {k: getattr(pb.card, k) for k in CARD}
        assert view["payment_method_details"] == {"type": "card", "card": card}


@pytest.mark.parametrize("status", list(ChargeStatus), ids=lambda s: s.value)
def test_the_status_is_the_spec_lowercase_name(status: ChargeStatus) -> None:
    charge = new_charge()
    charge.status = status
    assert (
        VIEWS.charge(charge)["status"]
        == status.value
        == CHARGE_STATUS_NAMES[charge_to_pb(charge, VIEWS).status]
    )
