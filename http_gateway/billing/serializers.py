"""pb2 billing resources -> the spec's JSON objects: the core renders each object once (object_json)."""

from __future__ import annotations

import json

from connect.v1 import customer_pb2

from http_gateway.edge.serialization import JSON


def customer_json(customer: customer_pb2.Customer) -> JSON:
    """The customer exactly as the core rendered it (the same object its events carry)."""
    view: JSON = json.loads(customer.object_json)
    return view


def payment_method_json(method: customer_pb2.PaymentMethod) -> JSON:
    """The payment method as the core rendered it: display fields only, never number, CVC or token."""
    view: JSON = json.loads(method.object_json)
    return view
