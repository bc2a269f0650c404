"""The payout schedule table of the profile update's input. The merchant and API key objects are the
core's rendering (`object_json`, merchants/application/merchant_view.py), answered as they are."""

from __future__ import annotations

from collections.abc import Mapping

from connect.v1 import merchant_pb2

from http_gateway.edge.serialization import inverse

PAYOUT_SCHEDULE_NAMES: Mapping[int, str | None] = {
    # Proto: "Not set; the platform default (daily) applies."
    merchant_pb2.PAYOUT_SCHEDULE_UNSPECIFIED: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_DAILY: "daily",
    merchant_pb2.PAYOUT_SCHEDULE_WEEKLY: "weekly",
    merchant_pb2.PAYOUT_SCHEDULE_MONTHLY: "monthly",
}
PAYOUT_SCHEDULE_VALUES = inverse(PAYOUT_SCHEDULE_NAMES)
