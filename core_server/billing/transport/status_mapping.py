"""Subscription and invoice statuses ⇄ their proto enums: closed sets, so list filters cross gRPC typed
and are checked once, by the enum (the gateway's names are derived from it)."""

from __future__ import annotations

from connect.v1 import subscription_pb2

from core_server.billing.domain.invoice import InvoiceStatus
from core_server.billing.domain.subscription_status import SubscriptionStatus

# Built from the domain enums: a status the proto lacks fails here, at import.
SUBSCRIPTION_STATUS_FROM_PB = {
    subscription_pb2.SubscriptionStatus.Value(f"SUBSCRIPTION_STATUS_{status.name}"): status.value
    for status in SubscriptionStatus
}
INVOICE_STATUS_FROM_PB = {
    subscription_pb2.InvoiceStatus.Value(f"INVOICE_STATUS_{status.name}"): status.value
    for status in InvoiceStatus
}
