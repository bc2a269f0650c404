"""The webhook endpoint status table of the update's input. Endpoints, deliveries and events are the
core's rendering (`object_json`, webhooks/application/webhook_view.py and the outbox), answered as they
are."""

from __future__ import annotations

from collections.abc import Mapping

from connect.v1 import webhook_pb2

from http_gateway.edge.serialization import inverse

ENDPOINT_STATUS_NAMES: Mapping[int, str | None] = {
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_UNSPECIFIED: None,
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_ENABLED: "enabled",
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_DISABLED: "disabled",
    webhook_pb2.WEBHOOK_ENDPOINT_STATUS_FAILING: "failing",
}
ENDPOINT_STATUS_VALUES = inverse(ENDPOINT_STATUS_NAMES)
