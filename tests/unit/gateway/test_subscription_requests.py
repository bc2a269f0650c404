"""Subscription, item, preview and invoice routes through the Sanic app, with a scripted core: what each
body and query string becomes (or which param a refusal names), and that answers are the core's objects."""

from __future__ import annotations

import json

import pytest
from connect.v1 import subscription_pb2
from connect.v1 import subscription_service_pb2 as svc

from tests.unit.gateway.gateway_fakes import FakeStub

SECRET = {"Authorization": "Bearer sk_test_" + "a" * 32}
BASE = "/api/v1/connect"
SUB = "sub_" + "a" * 24
ITEM = "si_item_" + "b" * 24
INVOICE = "si_" + "c" * 32
SUBSCRIPTION = subscription_pb2.Subscription(
    id=SUB, object_json=json.dumps({"id": SUB, "object": "subscription", "status": "ACTIVE"})
)
ITEM_PB = subscription_pb2.SubscriptionItem(
    id=ITEM, object_json=json.dumps({"id": ITEM, "object": "subscription_item", "quantity": 2})
)
INVOICE_PB = subscription_pb2.Invoice(
    id=INVOICE, object_json=json.dumps({"id": INVOICE, "object": "invoice"})
)
PREVIEW = subscription_pb2.SubscriptionPreview(
    object_json=json.dumps({"object": "subscription_preview", "due_now_cents": 0})
)


@pytest.fixture
def subs(core):
    core.subscriptions = FakeStub()
    stub = core.subscriptions
    stub.CreateSubscription.by_default(svc.CreateSubscriptionResponse(subscription=SUBSCRIPTION))
    stub.UpdateSubscription.by_default(svc.UpdateSubscriptionResponse(subscription=SUBSCRIPTION))
    stub.CancelSubscription.by_default(svc.CancelSubscriptionResponse(subscription=SUBSCRIPTION))
    stub.PauseSubscription.by_default(svc.PauseSubscriptionResponse(subscription=SUBSCRIPTION))
    stub.AddSubscriptionItem.by_default(svc.AddSubscriptionItemResponse(item=ITEM_PB))
    stub.UpdateSubscriptionItem.by_default(svc.UpdateSubscriptionItemResponse(item=ITEM_PB))
    stub.RemoveSubscriptionItem.by_default(svc.RemoveSubscriptionItemResponse(item=ITEM_PB))
    stub.PreviewSubscriptionChange.by_default(svc.PreviewSubscriptionChangeResponse(preview=PREVIEW))
    return stub


def _error(r) -> tuple[int, str | None, str | None]:
    error = r.json()["error"]
    return r.status_code, error["code"], error["param"]


# Subscriptions


async def test_create_answers_201_with_the_core_object_and_passes_the_key_on(client, subs):
    body = {"customer_id": "cus_1", "price_id": "price_1", "metadata": {"k": "v"}}
    headers = {**SECRET, "Idempotency-Key": "sub-1"}
    r = await client.post(f"{BASE}/subscriptions", json=body, headers=headers)
    assert r.status_code == 201
    assert r.json() == json.loads(SUBSCRIPTION.object_json)
    sent = subs.CreateSubscription.last
    assert (sent.customer_id, sent.price_id, dict(sent.metadata)) == ("cus_1", "price_1", {"k": "v"})
    assert not sent.HasField("tax_rate_id") and not sent.HasField("collection_method")
    assert sent.idempotency.key == "sub-1"


@pytest.mark.parametrize("missing", ["customer_id", "price_id"])
async def test_create_names_a_missing_field(client, subs, missing):
    body = {k: v for k, v in {"customer_id": "cus_1", "price_id": "price_1"}.items() if k != missing}
    r = await client.post(f"{BASE}/subscriptions", json=body, headers=SECRET)
    assert _error(r) == (400, "parameter_missing", missing)
    assert not subs.CreateSubscription.calls


async def test_update_tells_an_empty_tax_rate_from_an_absent_one(client, subs):
    r = await client.patch(f"{BASE}/subscriptions/{SUB}", json={"tax_rate_id": ""}, headers=SECRET)
    assert r.status_code == 200
    sent = subs.UpdateSubscription.last
    assert sent.HasField("tax_rate_id") and sent.tax_rate_id == ""
    assert not sent.HasField("price_id") and not sent.HasField("metadata")
    await client.patch(f"{BASE}/subscriptions/{SUB}", json={"metadata": {}}, headers=SECRET)
    sent = subs.UpdateSubscription.last
    assert not sent.HasField("tax_rate_id") and sent.HasField("metadata")


@pytest.mark.parametrize("behaviour", ["create_prorations", "always_invoice", "none"])
async def test_update_takes_the_subscription_proration_behaviours(client, subs, behaviour):
    body = {"price_id": "price_2", "proration_behavior": behaviour}
    r = await client.patch(f"{BASE}/subscriptions/{SUB}", json=body, headers=SECRET)
    assert r.status_code == 200
    assert subs.UpdateSubscription.last.proration_behavior == behaviour


@pytest.mark.parametrize("behaviour", ["defer_to_next_cycle", "prorate", ""])
async def test_update_refuses_other_proration_behaviours(client, subs, behaviour):
    body = {"price_id": "price_2", "proration_behavior": behaviour}
    r = await client.patch(f"{BASE}/subscriptions/{SUB}", json=body, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "proration_behavior")


async def test_cancel_defaults_to_now_without_proration(client, subs):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/cancel", headers=SECRET)
    assert r.status_code == 200
    sent = subs.CancelSubscription.last
    assert (sent.subscription_id, sent.at_period_end, sent.prorate) == (SUB, False, False)


async def test_cancel_reads_booleans_from_the_query_string_or_the_body(client, subs):
    await client.post(f"{BASE}/subscriptions/{SUB}/cancel?at_period_end=true", headers=SECRET)
    assert subs.CancelSubscription.last.at_period_end is True
    body = {"prorate": True}
    await client.post(f"{BASE}/subscriptions/{SUB}/cancel?at_period_end=false", json=body, headers=SECRET)
    assert (subs.CancelSubscription.last.at_period_end, subs.CancelSubscription.last.prorate) == (False, True)


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("True", True), ("TRUE", True), ("1", True), ("false", False), ("0", False)],
)
async def test_a_query_boolean_is_true_or_false_in_any_case_or_1_or_0(client, subs, text, value):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/cancel?at_period_end={text}", headers=SECRET)
    assert r.status_code == 200 and subs.CancelSubscription.last.at_period_end is value


@pytest.mark.parametrize("text", ["yes", "", "2", "truthy"])
async def test_any_other_query_boolean_is_refused(client, subs, text):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/cancel?at_period_end={text}", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "at_period_end")


async def test_cancel_refuses_one_option_in_both_places(client, subs):
    url = f"{BASE}/subscriptions/{SUB}/cancel?prorate=true"
    r = await client.post(url, json={"prorate": False}, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "prorate")


async def test_pause_takes_no_parameters(client, subs):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/pause", json={"now": True}, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "now")
    r = await client.post(f"{BASE}/subscriptions/{SUB}/pause", headers={**SECRET, "Idempotency-Key": "p"})
    assert r.status_code == 200 and subs.PauseSubscription.last.idempotency.key == "p"


@pytest.mark.parametrize(
    ("status", "ok"), [("ACTIVE", True), ("PAUSED", True), ("active", False), ("X", False)]
)
async def test_list_status_is_one_of_the_subscription_statuses(client, subs, status, ok):
    subs.ListSubscriptions.by_default(svc.ListSubscriptionsResponse(subscriptions=[SUBSCRIPTION]))
    r = await client.get(f"{BASE}/subscriptions?status={status}", headers=SECRET)
    if ok:
        assert (
            r.status_code == 200
            and subs.ListSubscriptions.last.status
            == subscription_pb2.SubscriptionStatus.Value(f"SUBSCRIPTION_STATUS_{status}")
        )
    else:
        assert _error(r) == (400, "parameter_invalid", "status")


async def test_list_passes_filters_and_answers_the_envelope(client, subs):
    reply = svc.ListSubscriptionsResponse(subscriptions=[SUBSCRIPTION], has_more=True, total_count=3)
    subs.ListSubscriptions.by_default(reply)
    r = await client.get(f"{BASE}/subscriptions?customer_id=cus_1&limit=1", headers=SECRET)
    assert r.json() == {
        "object": "list",
        "data": [json.loads(SUBSCRIPTION.object_json)],
        "has_more": True,
        "url": f"{BASE}/subscriptions",
        "total_count": 3,
    }
    sent = subs.ListSubscriptions.last
    assert (sent.customer_id, sent.limit) == ("cus_1", 1)
    assert not sent.HasField("price_id") and sent.status == subscription_pb2.SUBSCRIPTION_STATUS_UNSPECIFIED


@pytest.mark.parametrize("limit", ["0", "101"])
async def test_list_limit_is_1_to_100(client, subs, limit):
    r = await client.get(f"{BASE}/subscriptions?limit={limit}", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "limit")


# Items


@pytest.mark.parametrize(
    "body",
    [
        {"priceId": "price_9", "quantity": 2, "prorationBehavior": "charge_immediately"},
        {"price_id": "price_9", "quantity": 2, "proration_behavior": "charge_immediately"},
    ],
)
async def test_add_item_takes_camel_and_snake_case(client, subs, body):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/items", json=body, headers=SECRET)
    assert r.status_code == 201 and r.json()["id"] == ITEM
    sent = subs.AddSubscriptionItem.last
    assert (sent.price_id, sent.quantity, sent.proration_behavior) == ("price_9", 2, "charge_immediately")


async def test_add_item_quantity_defaults_to_1_and_the_behaviour_to_the_core(client, subs):
    await client.post(f"{BASE}/subscriptions/{SUB}/items", json={"priceId": "price_9"}, headers=SECRET)
    sent = subs.AddSubscriptionItem.last
    assert sent.quantity == 1 and not sent.HasField("proration_behavior")


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({}, "priceId", "parameter_missing"),
        ({"priceId": "p", "price_id": "p"}, "price_id", "parameter_invalid"),
        ({"priceId": "p", "quantity": 0}, "quantity", "parameter_invalid"),
        ({"priceId": "p", "quantity": 1.5}, "quantity", "parameter_invalid"),
        ({"priceId": "p", "quantity": "2"}, "quantity", "parameter_invalid"),
        (
            {"priceId": "p", "prorationBehavior": "create_prorations"},
            "prorationBehavior",
            "parameter_invalid",
        ),
        ({"priceId": "p", "proration_behavior": "later"}, "proration_behavior", "parameter_invalid"),
        ({"priceId": "p", "isBaseItem": True}, "isBaseItem", "parameter_invalid"),
    ],
)
async def test_add_item_refusals_name_the_param_as_sent(client, subs, body, param, code):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/items", json=body, headers=SECRET)
    assert _error(r) == (400, code, param)
    assert not subs.AddSubscriptionItem.calls


async def test_list_items_is_paged_like_every_list(client, subs):
    answer = svc.ListSubscriptionItemsResponse(items=[ITEM_PB], has_more=True, total_count=12)
    subs.ListSubscriptionItems.by_default(answer)
    url = f"{BASE}/subscriptions/{SUB}/items"
    r = await client.get(url, params={"limit": 1, "starting_after": "si_1"}, headers=SECRET)
    assert r.json() == {
        "object": "list",
        "data": [json.loads(ITEM_PB.object_json)],
        "has_more": True,
        "url": url,
        "total_count": 12,
    }
    sent = subs.ListSubscriptionItems.calls[-1].message
    assert (sent.limit, sent.starting_after, sent.subscription_id) == (1, "si_1", SUB)
    assert _error(await client.get(url, params={"limit": 101}, headers=SECRET))[2] == "limit"
    assert _error(await client.get(url, params={"nope": 1}, headers=SECRET))[2] == "nope"


async def test_update_item_needs_a_quantity_of_at_least_1(client, subs):
    url = f"{BASE}/subscriptions/{SUB}/items/{ITEM}"
    assert _error(await client.patch(url, json={}, headers=SECRET)) == (400, "parameter_missing", "quantity")
    assert _error(await client.patch(url, json={"quantity": -1}, headers=SECRET))[2] == "quantity"
    r = await client.patch(url, json={"quantity": 3, "proration_behavior": "none"}, headers=SECRET)
    assert r.status_code == 200
    sent = subs.UpdateSubscriptionItem.last
    assert (sent.subscription_id, sent.item_id, sent.quantity, sent.proration_behavior) == (
        SUB,
        ITEM,
        3,
        "none",
    )


async def test_remove_item_reads_immediate_from_the_query_default_false(client, subs):
    url = f"{BASE}/subscriptions/{SUB}/items/{ITEM}"
    assert (await client.delete(url, headers=SECRET)).status_code == 200
    assert subs.RemoveSubscriptionItem.last.immediate is False
    await client.delete(url + "?immediate=true", headers={**SECRET, "Idempotency-Key": "rm"})
    sent = subs.RemoveSubscriptionItem.last
    assert (sent.item_id, sent.immediate, sent.idempotency.key) == (ITEM, True, "rm")
    r = await client.delete(url + "?immediate=now", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "immediate")


async def test_remove_item_reads_immediate_from_the_body_too_and_refuses_other_fields(client, subs):
    url = f"{BASE}/subscriptions/{SUB}/items/{ITEM}"
    assert (await client.request("DELETE", url, json={"immediate": True}, headers=SECRET)).status_code == 200
    assert subs.RemoveSubscriptionItem.last.immediate is True
    calls = len(subs.RemoveSubscriptionItem.calls)
    r = await client.request("DELETE", url, json={"bogus": 1}, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "bogus")
    r = await client.request("DELETE", url + "?immediate=true", json={"immediate": False}, headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "immediate")
    assert len(subs.RemoveSubscriptionItem.calls) == calls  # refused: the core was never asked


# Preview


@pytest.mark.parametrize(
    ("body", "field", "expected"),
    [
        ({"price_id": "price_2"}, "price_change", svc.PreviewPriceChange(price_id="price_2")),
        (
            {"price_id": "price_2", "proration_behavior": "none"},
            "price_change",
            svc.PreviewPriceChange(price_id="price_2", proration_behavior="none"),
        ),
        (
            {"add_item": {"priceId": "price_3"}},
            "add_item",
            svc.PreviewAddItem(price_id="price_3", quantity=1),
        ),
        (
            {"add_item": {"price_id": "price_3", "quantity": 4, "proration_behavior": "none"}},
            "add_item",
            svc.PreviewAddItem(price_id="price_3", quantity=4, proration_behavior="none"),
        ),
        (
            {"update_item": {"id": ITEM, "quantity": 5}},
            "update_item",
            svc.PreviewUpdateItem(item_id=ITEM, quantity=5),
        ),
        ({"remove_item": {"id": ITEM}}, "remove_item", svc.PreviewRemoveItem(item_id=ITEM)),
        (
            {"remove_item": {"id": ITEM, "immediate": True}},
            "remove_item",
            svc.PreviewRemoveItem(item_id=ITEM, immediate=True),
        ),
    ],
)
async def test_preview_sends_the_one_change_as_the_oneof(client, subs, body, field, expected):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/preview", json=body, headers=SECRET)
    assert r.status_code == 200 and r.json() == json.loads(PREVIEW.object_json)
    sent = subs.PreviewSubscriptionChange.last
    assert sent.subscription_id == SUB
    assert sent.WhichOneof("change") == field
    assert getattr(sent, field) == expected


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({}, "price_id", "parameter_missing"),
        ({"proration_behavior": "none"}, "price_id", "parameter_missing"),
        ({"price_id": "p", "add_item": {"priceId": "p"}}, "add_item", "parameter_invalid"),
        (
            {"update_item": {"id": ITEM, "quantity": 1}, "remove_item": {"id": ITEM}},
            "remove_item",
            "parameter_invalid",
        ),
        (
            {"add_item": {"priceId": "p"}, "proration_behavior": "none"},
            "proration_behavior",
            "parameter_invalid",
        ),
        (
            {"price_id": "p", "proration_behavior": "charge_immediately"},
            "proration_behavior",
            "parameter_invalid",
        ),
        ({"add_item": {}}, "add_item.priceId", "parameter_missing"),
        ({"add_item": {"priceId": "p", "quantity": 0}}, "add_item.quantity", "parameter_invalid"),
        (
            {"add_item": {"priceId": "p", "prorationBehavior": "always_invoice"}},
            "add_item.prorationBehavior",
            "parameter_invalid",
        ),
        ({"add_item": "price_3"}, "add_item", "parameter_invalid"),
        ({"update_item": {"id": ITEM}}, "update_item.quantity", "parameter_missing"),
        ({"update_item": {"quantity": 2}}, "update_item.id", "parameter_missing"),
        ({"remove_item": {"id": ITEM, "immediate": "yes"}}, "remove_item.immediate", "parameter_invalid"),
        ({"remove_item": {"id": ITEM, "at": 1}}, "remove_item.at", "parameter_invalid"),
    ],
)
async def test_preview_needs_exactly_one_well_formed_change(client, subs, body, param, code):
    r = await client.post(f"{BASE}/subscriptions/{SUB}/preview", json=body, headers=SECRET)
    assert _error(r) == (400, code, param)
    assert not subs.PreviewSubscriptionChange.calls


# Invoices


async def test_invoices_list_filters_and_answers_the_core_objects(client, subs):
    subs.ListInvoices.by_default(svc.ListInvoicesResponse(invoices=[INVOICE_PB]))
    r = await client.get(f"{BASE}/invoices?subscription_id={SUB}&status=PAID", headers=SECRET)
    assert r.status_code == 200
    assert r.json() == {
        "object": "list",
        "data": [json.loads(INVOICE_PB.object_json)],
        "has_more": False,
        "url": f"{BASE}/invoices",
    }
    sent = subs.ListInvoices.last
    assert (sent.subscription_id, sent.status) == (
        SUB,
        subscription_pb2.INVOICE_STATUS_PAID,
    ) and not sent.HasField("customer_id")


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        (f"subscription={SUB}", {"subscription_id": SUB}),
        ("customer=cus_1", {"customer_id": "cus_1"}),
        (f"subscription_id={SUB}&customer=cus_1", {"subscription_id": SUB, "customer_id": "cus_1"}),
    ],
)
async def test_invoice_filters_take_the_object_names_of_design_too(client, subs, query, sent):
    subs.ListInvoices.by_default(svc.ListInvoicesResponse(invoices=[INVOICE_PB]))
    assert (await client.get(f"{BASE}/invoices?{query}", headers=SECRET)).status_code == 200
    last = subs.ListInvoices.last
    assert {
        name: getattr(last, name) for name in ("subscription_id", "customer_id") if last.HasField(name)
    } == sent


async def test_a_filter_in_both_spellings_is_refused(client, subs):
    r = await client.get(f"{BASE}/invoices?customer=cus_1&customer_id=cus_2", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "customer")
    r = await client.get(f"{BASE}/subscriptions?price=price_1&price_id=price_1", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "price")


async def test_subscription_filters_take_customer_and_price(client, subs):
    subs.ListSubscriptions.by_default(svc.ListSubscriptionsResponse(subscriptions=[SUBSCRIPTION]))
    r = await client.get(f"{BASE}/subscriptions?customer=cus_1&price=price_1", headers=SECRET)
    assert r.status_code == 200
    assert (subs.ListSubscriptions.last.customer_id, subs.ListSubscriptions.last.price_id) == (
        "cus_1",
        "price_1",
    )


async def test_invoices_status_is_one_of_the_invoice_statuses(client, subs):
    r = await client.get(f"{BASE}/invoices?status=ACTIVE", headers=SECRET)
    assert _error(r) == (400, "parameter_invalid", "status")


@pytest.mark.parametrize("prefix", ["/api/v1/connect", "/connect/v1", "/v1"])
async def test_get_invoice_under_every_address_style(client, subs, prefix):
    subs.GetInvoice.by_default(svc.GetInvoiceResponse(invoice=INVOICE_PB))
    r = await client.get(f"{prefix}/invoices/{INVOICE}", headers=SECRET)
    assert r.status_code == 200 and r.json()["id"] == INVOICE
    assert subs.GetInvoice.last.invoice_id == INVOICE
