"""The documented subscription, item, invoice and preview schemas describe what the core renders.

The gateway answers the core's `object_json` as it is, so the objects are made here as the core makes
them — a domain Subscription moved through its rules, rendered by its one view — in the stages that
fill different fields (trial, items added and removed, prorations, paid and failed invoices, paused,
cancelled). A rendering that gains or renames a field fails here until the document follows; the
schemas forbid unknown properties.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from core_server.billing.application.subscription_view import (
    invoice_json,
    preview_json,
    subscription_item_json,
    subscription_json,
)
from core_server.billing.domain.catalog import Price, PriceTerms
from core_server.billing.domain.invoice import BillingReason
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_changes import Preview, PriceProration
from core_server.billing.domain.subscription_item import ItemProration
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.domain.environment import Environment
from http_gateway.edge.serialization import list_body
from http_gateway.operational.openapi import document

_COMPONENTS = document()["components"]
START = datetime(2026, 1, 1, tzinfo=UTC)
MID = START + timedelta(days=15, hours=12)


def _validator(schema_name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/components/schemas/{schema_name}", "components": _COMPONENTS})


def _price(price_id: str = "price_base", amount: int = 3100, *, trial: int | None = None) -> Price:
    return Price(
        id=price_id,
        merchant_id="acct_1",
        environment=Environment.TEST,
        plan_id="plan_1",
        terms=PriceTerms(amount, "usd", "monthly", 1, trial),
        active=True,
        created=START,
        metadata={},
    )


def _rate() -> TaxRate:
    return TaxRate(
        id="txr_1",
        merchant_id="acct_1",
        environment=Environment.TEST,
        percentage=Decimal("19"),
        display_name="VAT",
        jurisdiction=None,
        inclusive=False,
        country="DE",
        state=None,
        active=True,
        created=START,
        metadata={},
    )


def _started(*, trial: int | None = None) -> Subscription:
    return Subscription.start(
        "sub_" + "a" * 24,
        "acct_1",
        Environment.TEST,
        "cus_1",
        _price(trial=trial),
        tax_rate_id="txr_1",
        metadata={"plan": "pro"},
        now=START,
    )


def _paid() -> Subscription:
    subscription = _started()
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, _rate(), START)
    subscription.record_attempt(invoice, "ch_" + "b" * 32, True, START)
    return subscription


def _failed() -> Subscription:
    subscription = _started()
    invoice = subscription.open_period_invoice(BillingReason.SUBSCRIPTION_CREATE, None, START)
    subscription.record_attempt(invoice, "ch_" + "c" * 32, False, START, "generic_decline")
    return subscription


def _with_items() -> Subscription:
    subscription = _paid()
    seat = _price("price_seat", 999)
    kept = subscription.add_item(seat, 2, ItemProration.DEFER_TO_NEXT_CYCLE, {"k": "v"}, None, MID)
    gone = subscription.add_item(seat, 1, ItemProration.CHARGE_IMMEDIATELY, {}, _rate(), MID)
    later = subscription.add_item(seat, 1, ItemProration.NONE, {}, None, MID)
    subscription.update_item(kept.id, 3, None, None, MID)
    subscription.remove_item(gone.id, True, MID + timedelta(days=1))
    subscription.remove_item(later.id, False, MID + timedelta(days=1))
    return subscription


def _price_changed() -> Subscription:
    subscription = _paid()
    subscription.change_price(_price("price_big", 9900), PriceProration.CREATE_PRORATIONS, None, MID)
    return subscription


def _paused() -> Subscription:
    subscription = _paid()
    subscription.pause(MID)
    return subscription


def _canceled() -> Subscription:
    subscription = _paid()
    paid = subscription.invoices[0]
    subscription.cancel(False, MID, refund_of=paid, key="key-1")
    subscription.finish_cancel_refund("re_" + "d" * 24, MID)
    return subscription


def _canceling() -> Subscription:
    subscription = _paid()
    subscription.cancel(True, MID)
    return subscription


SUBSCRIPTIONS: dict[str, Callable[[], Subscription]] = {
    "trialing": lambda: _started(trial=14),
    "active_unbilled": _started,
    "paid": _paid,
    "past_due": _failed,
    "with_items": _with_items,
    "price_changed": _price_changed,
    "paused": _paused,
    "canceled": _canceled,
    "canceling": _canceling,
}


def _bodies(subscription: Subscription) -> dict[str, list[Any]]:
    """Every documented answer that carries this subscription, its items or its invoices."""
    item_texts = [subscription_item_json(item) for item in subscription.items]
    invoice_texts = [invoice_json(invoice) for invoice in subscription.invoices]
    items = [json.loads(text) for text in item_texts]
    invoices = [json.loads(text) for text in invoice_texts]
    lines = [pending.line for pending in subscription.prorations]
    preview = Preview.of(lines, _rate(), due_now=bool(lines))
    return {
        "Subscription": [json.loads(subscription_json(subscription))],
        "SubscriptionItem": items,
        "SubscriptionItemList": [
            json.loads(
                list_body(item_texts, url="/v1/subscriptions/x/items", has_more=False, total_count=len(items))
            )
        ],
        "Invoice": invoices,
        "InvoiceList": [
            json.loads(
                list_body(invoice_texts, url="/v1/invoices", has_more=False, total_count=len(invoices))
            )
        ],
        "SubscriptionList": [
            json.loads(list_body([subscription_json(subscription)], url="/", has_more=True))
        ],
        "SubscriptionPreview": [json.loads(preview_json(preview))],
    }


@pytest.mark.parametrize("stage", SUBSCRIPTIONS)
def test_core_rendered_objects_match_the_documented_schemas(stage):
    for schema, bodies in _bodies(SUBSCRIPTIONS[stage]()).items():
        for body in bodies:
            errors = [e.message for e in _validator(schema).iter_errors(body)]
            assert not errors, (stage, schema, errors)


def test_the_stages_fill_every_documented_field_with_a_value():
    """Null-or-value fields are each seen with a value somewhere, so a renamed one cannot hide behind null."""
    seen: dict[str, set[str]] = {"Subscription": set(), "SubscriptionItem": set(), "Invoice": set()}
    line_fields: set[str] = set()
    for make in SUBSCRIPTIONS.values():
        for schema, bodies in _bodies(make()).items():
            for body in bodies if schema in seen else ():
                seen[schema] |= {name for name, value in body.items() if value is not None}
                for line in body.get("lines", ()):
                    line_fields |= {name for name, value in line.items() if value is not None}
    for schema, fields in seen.items():
        assert set(_COMPONENTS["schemas"][schema]["properties"]) == fields, schema
    assert set(_COMPONENTS["schemas"]["InvoiceLine"]["properties"]) == line_fields
