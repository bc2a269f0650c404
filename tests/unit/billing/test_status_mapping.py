"""Subscription and invoice statuses cross gRPC as proto enums: the enum, the core's domain statuses and
the names the gateway accepts are one closed set."""

from __future__ import annotations

from connect.v1 import subscription_pb2

from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus
from core_server.billing.transport.status_mapping import INVOICE_STATUS_FROM_PB, SUBSCRIPTION_STATUS_FROM_PB
from http_gateway.billing.subscription_bodies import INVOICE_STATUSES, SUBSCRIPTION_STATUSES


def test_every_subscription_status_has_one_enum_value_and_one_rest_name() -> None:
    values = {v for v in subscription_pb2.SubscriptionStatus.values() if v}
    assert set(SUBSCRIPTION_STATUS_FROM_PB) == values
    assert set(SUBSCRIPTION_STATUS_FROM_PB.values()) == {s.value for s in SubscriptionStatus}
    assert {SUBSCRIPTION_STATUS_FROM_PB[v]: v for v in values} == SUBSCRIPTION_STATUSES


def test_every_invoice_status_has_one_enum_value_and_one_rest_name() -> None:
    values = {v for v in subscription_pb2.InvoiceStatus.values() if v}
    assert set(INVOICE_STATUS_FROM_PB) == values
    assert set(INVOICE_STATUS_FROM_PB.values()) == {s.value for s in InvoiceStatus}
    assert {INVOICE_STATUS_FROM_PB[v]: v for v in values} == INVOICE_STATUSES
