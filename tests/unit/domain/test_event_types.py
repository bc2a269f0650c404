"""The event-type catalogue: every spec type, `*` for all, unknown types refused on `events`."""

from __future__ import annotations

import pytest

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.event_types import (
    EVENT_TYPES,
    parse_type_filter,
    validate_subscription,
)
from core_server.payments.domain.events import ChargeEventType


def test_every_event_the_platform_emits_is_in_the_catalogue() -> None:
    assert {t.value for t in ChargeEventType} <= set(EVENT_TYPES)


def test_later_billing_and_payout_types_are_already_known() -> None:
    for name in (
        "invoice.paid",
        "invoice.payment_failed",
        "payout.completed",
        "subscription.trial_will_end",
        "subscription_item.deleted",
    ):
        assert name in EVENT_TYPES


def test_a_subscription_keeps_order_and_drops_duplicates() -> None:
    assert validate_subscription(["charge.failed", "charge.created", "charge.failed"]) == (
        "charge.failed",
        "charge.created",
    )


@pytest.mark.parametrize(
    "events", [[], ["charge.exploded"], ["charge.created", "Charge.Created"], ["*", "charge.created"]]
)
def test_bad_subscriptions_are_parameter_invalid_on_events(events: list[str]) -> None:
    with pytest.raises(ParameterInvalid) as info:
        validate_subscription(events)
    assert info.value.param == "events"


def test_list_filters_take_an_exact_type_or_a_group_prefix() -> None:
    assert parse_type_filter("charge.created") == ("charge.created", None)
    assert parse_type_filter("charge.*") == (None, "charge.")
    assert parse_type_filter("subscription_item.*") == (None, "subscription_item.")
    for bad in ("charge", "nothing.*", "*", "charge.created.*"):
        with pytest.raises(ParameterInvalid) as info:
            parse_type_filter(bad)
        assert info.value.param == "type"


def test_the_delivered_body_is_compact_json_with_the_spec_keys_first() -> None:
    from core_server.webhooks.domain.events import event_body

    payload = {
        "data": {"object": {"amount": 5000}},
        "livemode": False,
        "type": "charge.created",
        "object": "event",
        "id": "evt_1",
        "created": 1_700_000_000,
        "extra": "é",
    }
    assert (
        event_body(payload)
        == (
            '{"id":"evt_1","object":"event","type":"charge.created","created":1700000000,"livemode":false,'
            '"data":{"object":{"amount":5000}},"extra":"é"}'
        ).encode()
    )
