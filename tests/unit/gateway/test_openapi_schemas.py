"""The document's response schemas describe what the serializers really write.

Each serializer gets two protobuf messages built from the message descriptors themselves: one with
every field set (every `optional` present, one element per list, each oneof case in turn) and one with
only the always-present fields. Both outputs must validate against the schema the document names for
that answer; since the schemas forbid unknown properties, a serializer that gains or renames a field
fails here until the document follows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from connect.v1 import api_key_pb2, charge_pb2, checkout_pb2, merchant_pb2, webhook_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from jsonschema import Draft202012Validator

from http_gateway.openapi import document
from http_gateway.serializers import (
    api_key_json,
    capture_json,
    charge_json,
    checkout_page_json,
    checkout_result_json,
    dispute_json,
    list_json,
    merchant_json,
    refund_json,
)
from http_gateway.webhook_serializers import event_json, webhook_delivery_json, webhook_endpoint_json

_COMPONENTS = document()["components"]
# Values a real core sends: statuses and codes from the spec, not arbitrary strings.
_STRINGS = {
    "currency": "usd",
    "status": "succeeded",
    "reason": "customer_request",
    "error_code": "generic_decline",
    "available_payment_methods": "card",
}
_TYPED = {
    (checkout_pb2.CheckoutResult, "status"): "authorized",
    (charge_pb2.Dispute, "status"): "needs_response",
    (webhook_pb2.WebhookEndpoint, "events"): "charge.completed",
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


def _event(charge: charge_pb2.Charge) -> webhook_pb2.Event:
    payload = {"id": "evt_x", "object": "event", "type": "charge.completed", "created": 1, "livemode": False,
               "data": {"object": charge_json(charge)}}
    return webhook_pb2.Event(payload_json=json.dumps(payload))


CASES: list[tuple[str, type[Message], Callable[[Any], Any]]] = [
    ("Charge", charge_pb2.Charge, charge_json),
    ("CaptureResult", charge_pb2.Charge, capture_json),
    ("Refund", charge_pb2.Refund, refund_json),
    ("Dispute", charge_pb2.Dispute, dispute_json),
    ("ChargeList", charge_pb2.Charge, lambda c: list_json([charge_json(c)], url="/x", has_more=True,
                                                          total_count=1)),
    ("ApiKey", api_key_pb2.ApiKey, lambda k: api_key_json(k, include_secret=False)),
    ("NewApiKey", api_key_pb2.ApiKey, lambda k: api_key_json(k, include_secret=True)),
    ("ApiKeyList", api_key_pb2.ApiKey, lambda k: list_json([api_key_json(k, include_secret=False)], url="/x",
                                                           has_more=False)),
    ("Merchant", merchant_pb2.Merchant, merchant_json),
    ("CheckoutPage", checkout_pb2.CheckoutPage, checkout_page_json),
    ("CheckoutResult", checkout_pb2.CheckoutResult, checkout_result_json),
    ("WebhookEndpoint", webhook_pb2.WebhookEndpoint, webhook_endpoint_json),
    ("NewWebhookEndpoint", webhook_pb2.WebhookEndpoint, lambda e: webhook_endpoint_json(e, include_secret=True)),
    ("WebhookDelivery", webhook_pb2.WebhookDelivery, webhook_delivery_json),
    ("WebhookDeliveryList", webhook_pb2.WebhookDelivery,
     lambda d: list_json([webhook_delivery_json(d)], url="/x", has_more=False)),
    ("Event", charge_pb2.Charge, lambda c: event_json(_event(c))),
]


@pytest.mark.parametrize(("schema", "message_type", "serialize"), CASES, ids=[c[0] for c in CASES])
def test_serializer_output_matches_the_documented_schema(schema, message_type, serialize):
    validator = _validator(schema)
    for message in _variants(message_type):
        body = serialize(message)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, f"{schema} from {type(message).__name__}: {errors}"


@pytest.mark.parametrize("status", [s for s in charge_pb2.ChargeStatus.values() if s])
def test_every_charge_status_is_a_documented_value(status):
    charge = fill(charge_pb2.Charge(), optional=False)
    charge.status = status
    assert not list(_validator("Charge").iter_errors(charge_json(charge)))


def test_an_unknown_checkout_id_shows_only_the_error():
    page = checkout_pb2.CheckoutPage(charge_id="nope", found=False, error_message="Charge not found")
    assert not list(_validator("CheckoutPage").iter_errors(checkout_page_json(page)))


def test_the_schemas_refuse_an_undocumented_field():
    body = charge_json(fill(charge_pb2.Charge(), optional=True))
    body["surprise"] = 1
    assert list(_validator("Charge").iter_errors(body))


def test_a_paypal_charge_matches_too():
    charge = fill(charge_pb2.Charge(), optional=True)
    charge.ClearField("card")
    body = charge_json(charge)
    assert body["payment_method_details"]["type"] == "paypal"
    assert not list(_validator("Charge").iter_errors(body))
