"""The document's response schemas describe what the gateway really answers.

Every resource is rendered by the core (the gateway answers the core's `object_json` as it is, and
writes list envelopes around it): they are made here as the core makes them — domain objects, charges
through their transitions, converted by its own mapping — in every stage and status, so a rendering that
gains or renames a field fails here until the document follows. The gateway's own answers (checkout page
data and results) get two protobuf messages built from the message descriptors themselves: one with
every field set (every `optional` present, one element per list, each oneof case in turn) and one with
only the always-present fields. Every output must validate
against the schema the document names for that answer; the schemas forbid unknown properties.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from connect.v1 import charge_pb2, checkout_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from jsonschema import Draft202012Validator

from core_server.kernel.domain.environment import Environment
from core_server.merchants.domain.api_key import ApiKey
from core_server.merchants.domain.merchant import Merchant, Profile
from core_server.merchants.transport.mapping import api_key_to_pb, merchant_to_pb
from core_server.payments.domain.charge import Charge, ChargeStatus
from core_server.payments.domain.invoice_payment import InvoicePayment, invoice_charge
from core_server.payments.domain.payment import PaymentMethodType, PaymentOutcome, PaypalDetails
from core_server.payments.transport.mapping import STATUS_TO_PB
from core_server.webhooks.domain.webhook_delivery import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from core_server.webhooks.domain.webhook_endpoint import WebhookEndpoint, WebhookEndpointStatus
from core_server.webhooks.transport.webhook_mapping import delivery_to_pb, endpoint_to_pb
from http_gateway.edge.serialization import list_body
from http_gateway.operational.openapi import document
from http_gateway.payments.serializers import checkout_page_json, checkout_result_json
from tests.support.core_shapes import (
    NOW,
    capture_pb,
    captured,
    charge_pb,
    events_pb,
    fully_populated,
    in_status,
    new_charge,
    pay_by_paypal,
)

_COMPONENTS = document()["components"]
# Values a real core sends: statuses and codes from the spec, not arbitrary strings.
_STRINGS = {
    "currency": "usd",
    "error_code": "generic_decline",
    "available_payment_methods": "card",
}
_TYPED = {
    (checkout_pb2.CheckoutResult, "status"): "authorized",
}


def _validator(schema_name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/components/schemas/{schema_name}", "components": _COMPONENTS})


def _value(message: Message, field: FieldDescriptor) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return field.enum_type.values[-1].number  # never UNSPECIFIED
    if field.type == FieldDescriptor.TYPE_BOOL:
        return True
    if field.type == FieldDescriptor.TYPE_STRING:
        return _TYPED.get((type(message), field.name)) or _STRINGS.get(field.name, f"{field.name}-value")
    return 1700000000 if field.name.endswith(("_at", "created")) else 1234


def fill(message: Message, *, optional: bool, oneof_case: int = 0) -> Message:
    """Set the fields of `message`: always-present ones, and with `optional` every field with presence."""
    for field in message.DESCRIPTOR.fields:
        real_oneof = field.containing_oneof is not None and not field.containing_oneof.name.startswith("_")
        if real_oneof:
            cases = field.containing_oneof.fields
            if not optional or field is not cases[oneof_case % len(cases)]:
                continue
        elif field.has_presence and not optional:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            getattr(message, field.name)["key"] = "value"
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            child = getattr(message, field.name).add() if _repeated(field) else getattr(message, field.name)
            fill(child, optional=optional, oneof_case=oneof_case)
        elif _repeated(field):
            getattr(message, field.name).append(_value(message, field))
        else:
            setattr(message, field.name, _value(message, field))
    return message


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _variants(message_type: type[Message]) -> list[Message]:
    return [fill(message_type(), optional=False)] + [
        fill(message_type(), optional=True, oneof_case=case) for case in range(2)
    ]


CASES: list[tuple[str, type[Message], Callable[[Any], Any]]] = [
    ("CheckoutPage", checkout_pb2.CheckoutPage, checkout_page_json),
    ("CheckoutResult", checkout_pb2.CheckoutResult, checkout_result_json),
]


@pytest.mark.parametrize(("schema", "message_type", "serialize"), CASES, ids=[c[0] for c in CASES])
def test_serializer_output_matches_the_documented_schema(schema, message_type, serialize):
    validator = _validator(schema)
    for message in _variants(message_type):
        body = serialize(message)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, f"{schema} from {type(message).__name__}: {errors}"


def test_an_unknown_checkout_id_shows_only_the_error():
    page = checkout_pb2.CheckoutPage(charge_id="nope", found=False, error_message="Charge not found")
    assert not list(_validator("CheckoutPage").iter_errors(checkout_page_json(page)))


def test_the_schemas_refuse_an_undocumented_field():
    body = json.loads(charge_pb(fully_populated()).object_json)
    assert not list(_validator("Charge").iter_errors(body))
    body["surprise"] = 1
    assert list(_validator("Charge").iter_errors(body))


# Charges as the core renders them.


def _won_dispute() -> Charge:
    charge = fully_populated()
    charge.close_dispute("won", NOW)
    return charge


def _lost_dispute() -> Charge:
    charge = in_status(ChargeStatus.DISPUTED)
    charge.close_dispute("lost", NOW)
    return charge


def _invoice_attempt() -> Charge:
    """DESIGN §9: an invoice's payment attempt, captured at once and naming its invoice."""
    payment = InvoicePayment(
        "si_" + "0" * 32, 1, 2900, "usd", "Pro plan", None, PaymentMethodType.PAYPAL, PaypalDetails("a@b.co")
    )
    outcome = PaymentOutcome(approved=True, transaction_id="sandbox_txn_1")
    return invoice_charge("ch_" + "c" * 32, "acct_test", Environment.TEST, payment, outcome, NOW)


CORE_CHARGES: dict[str, Callable[[], Charge]] = {
    "pending": new_charge,
    "fully_populated": fully_populated,  # captured by card, partially refunded, disputed
    "partial_capture": lambda: captured(amount=5000, capture=3000),
    "refunded": lambda: in_status(ChargeStatus.REFUNDED),
    "failed": lambda: in_status(ChargeStatus.FAILED),
    "paypal": lambda: pay_by_paypal(new_charge()),
    "dispute_won": _won_dispute,
    "dispute_lost": _lost_dispute,
    "live": lambda: new_charge(livemode=True, description="Shoes", customer_email="buyer@example.com"),
    "invoice": _invoice_attempt,
}


def _charge_bodies(charge: Charge) -> dict[str, list[Any]]:
    """Every documented answer that carries this charge, its refunds, its dispute or its events."""
    pb = charge_pb(charge)
    return {
        "Charge": [json.loads(pb.object_json)],
        "CaptureResult": [json.loads(capture_pb(charge).object_json)],
        "ChargeList": [json.loads(list_body([pb.object_json], url="/x", has_more=True, total_count=1))],
        "Refund": [json.loads(refund.object_json) for refund in pb.refunds],
        "Dispute": [json.loads(pb.dispute.object_json)] if pb.HasField("dispute") else [],
        "Event": [json.loads(event.object_json) for event in events_pb(charge)],
    }


CHARGE_SCHEMAS = ["Charge", "CaptureResult", "ChargeList", "Refund", "Dispute", "Event"]


@pytest.mark.parametrize("schema", CHARGE_SCHEMAS)
def test_core_rendered_charges_match_the_documented_schema(schema):
    validator = _validator(schema)
    checked = 0
    for name, make in CORE_CHARGES.items():
        for body in _charge_bodies(make())[schema]:
            errors = [
                f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)
            ]
            assert not errors, f"{schema} of the {name} charge: {errors}"
            checked += 1
    assert checked


@pytest.mark.parametrize("status", list(ChargeStatus), ids=lambda s: s.value)
def test_every_charge_status_is_a_documented_value(status):
    body = json.loads(charge_pb(in_status(status)).object_json)
    assert body["status"] == status.value
    assert not list(_validator("Charge").iter_errors(body))


def test_the_documented_statuses_are_the_core_statuses():
    documented = set(_COMPONENTS["schemas"]["ChargeStatus"]["enum"])
    assert documented == {status.value for status in ChargeStatus}
    assert set(STATUS_TO_PB.values()) == {s for s in charge_pb2.ChargeStatus.values() if s}


def test_every_documented_charge_field_is_rendered_for_some_charge():
    """The samples above reach every stage: a documented field no charge shows is a stale document."""
    bodies = [json.loads(charge_pb(make()).object_json) for make in CORE_CHARGES.values()]
    schemas = _COMPONENTS["schemas"]
    assert set().union(*bodies) == set(schemas["Charge"]["properties"])
    details = [b["payment_method_details"] for b in bodies if "payment_method_details" in b]
    assert set().union(*details) == set(schemas["PaymentMethodDetails"]["properties"])
    statuses = {b["dispute"]["status"] for b in bodies if "dispute" in b}
    assert statuses == set(schemas["Dispute"]["properties"]["status"]["enum"])
    reasons = {r["reason"] for b in bodies for r in b["refunds"]}
    assert {"customer_request", None} <= reasons <= set(schemas["Refund"]["properties"]["reason"]["enum"])


def test_a_paypal_charge_matches_too():
    body = json.loads(charge_pb(pay_by_paypal(new_charge())).object_json)
    assert body["payment_method_details"]["type"] == "paypal"
    assert not list(_validator("Charge").iter_errors(body))


# Merchants, API keys, webhook endpoints and deliveries as the core renders them.


def _merchants() -> list[Merchant]:
    full = Profile(
        business_name="Shoes Inc",
        logo_url="https://shop.example/logo.png",
        brand_color="#1a2b3c",
        support_email="help@shop.example",
        payout_schedule="weekly",
        payout_account_number="000123456789",
        settlement_currency="eur",
    )
    return [Merchant("acct_1", "m@example.com", "h", profile, NOW) for profile in (Profile(), full)]


def _key(secret: str | None, revoked: bool = False) -> ApiKey:
    return ApiKey(
        id="key_" + "a" * 24,
        merchant_id="acct_1",
        name="server",
        environment=Environment.TEST,
        publishable_key="pk_test_" + "p" * 32,
        secret_key_last4="abcd",
        created=NOW,
        revoked_at=NOW if revoked else None,
        secret_key=secret,
    )


def _endpoint(secret: str | None = None, description: str | None = None) -> WebhookEndpoint:
    return WebhookEndpoint(
        id="we_" + "a" * 24,
        merchant_id="acct_1",
        environment=Environment.LIVE,
        url="https://shop.example/hook",
        events=("charge.completed",),
        description=description,
        status=WebhookEndpointStatus.FAILING,
        created=NOW,
        secret=secret,
    )


def _deliveries() -> list[WebhookDelivery]:
    failed = DeliveryAttempt(NOW, None, 10_000, "timed out", False)
    answered = DeliveryAttempt(NOW, 200, 12, None, True)
    pending = WebhookDelivery(
        "whd_1", "we_1", "evt_1", "charge.completed", DeliveryStatus.PENDING, 1, NOW, NOW, (failed,)
    )
    done = WebhookDelivery(
        "whd_2",
        "we_1",
        "evt_1",
        "charge.completed",
        DeliveryStatus.SUCCEEDED,
        2,
        None,
        NOW,
        (failed, answered),
    )
    return [pending, done]


def _listed(texts: list[str]) -> Any:
    return json.loads(list_body(texts, url="/x", has_more=False))


CORE_RESOURCES: list[tuple[str, list[Any]]] = [
    ("Merchant", [json.loads(merchant_to_pb(m).object_json) for m in _merchants()]),
    ("ApiKey", [json.loads(api_key_to_pb(_key(None, revoked)).object_json) for revoked in (False, True)]),
    ("NewApiKey", [json.loads(api_key_to_pb(_key("sk_test_" + "s" * 32)).object_json)]),
    ("ApiKeyList", [_listed([api_key_to_pb(_key(None, r)).object_json for r in (False, True)])]),
    (
        "WebhookEndpoint",
        [json.loads(endpoint_to_pb(_endpoint(description=d)).object_json) for d in (None, "x")],
    ),
    ("NewWebhookEndpoint", [json.loads(endpoint_to_pb(_endpoint("whsec_" + "s" * 32)).object_json)]),
    ("WebhookDelivery", [json.loads(delivery_to_pb(d).object_json) for d in _deliveries()]),
    ("WebhookDeliveryList", [_listed([delivery_to_pb(d).object_json for d in _deliveries()]), _listed([])]),
]


@pytest.mark.parametrize(("schema", "bodies"), CORE_RESOURCES, ids=[c[0] for c in CORE_RESOURCES])
def test_core_rendered_resources_match_the_documented_schema(schema, bodies):
    validator = _validator(schema)
    for body in bodies:
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, f"{schema}: {errors}"
