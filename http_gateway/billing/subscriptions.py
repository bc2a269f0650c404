"""Subscription routes (secret key), DESIGN §9: subscriptions, their items, and a preview of one change.

Every answer is the object the core rendered (`object_json`), as it is; bodies are checked in
subscription_bodies.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from connect.v1 import subscription_service_pb2 as pb
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.billing.subscription_bodies import (
    CREATE_FIELDS,
    ITEM_LIST_QUERY,
    SUBSCRIPTION_FILTERS,
    SUBSCRIPTION_LIST_QUERY,
    SUBSCRIPTION_STATUSES,
    cancel_options,
    item_body,
    item_update_body,
    list_filters,
    list_status,
    preview_request,
    remove_options,
    update_body,
)
from http_gateway.edge.pagination import page_fields
from http_gateway.edge.serialization import list_body
from http_gateway.edge.validation import parse_query, validate_body
from http_gateway.pipeline.admission import admit_api_key, core_of, respond, rpc, validated_with_key


def page_json(request: Request, data: Iterable[str], response: Any) -> str:
    """The list envelope of /customers; `total_count` only when the core counted."""
    total = response.total_count if response.HasField("total_count") else None
    return list_body(data, url=request.path, has_more=response.has_more, total_count=total)


async def create_subscription(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(
        request, caller.scope, lambda: validate_body(request, CREATE_FIELDS)
    )
    message = pb.CreateSubscriptionRequest(
        caller=caller.pb(),
        customer_id=body["customer_id"],
        price_id=body["price_id"],
        metadata=body.get("metadata", {}),
        idempotency=idempotency,
    )
    for name in ("collection_method", "tax_rate_id"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).subscriptions.CreateSubscription, message)
    return respond(reply, reply.response.subscription.object_json, status=201)


async def list_subscriptions(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, SUBSCRIPTION_LIST_QUERY)
    message = pb.ListSubscriptionsRequest(
        caller=caller.pb(),
        **page_fields(query),
    )
    if (status := list_status(query, SUBSCRIPTION_STATUSES)) is not None:
        message.status = status  # type: ignore[assignment]
    for name, value in list_filters(query, SUBSCRIPTION_FILTERS).items():
        setattr(message, name, value)
    reply = await rpc(request, core_of(request).subscriptions.ListSubscriptions, message, is_read=True)
    data = (s.object_json for s in reply.response.subscriptions)
    return respond(reply, page_json(request, data, reply.response))


async def get_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = pb.GetSubscriptionRequest(caller=caller.pb(), subscription_id=subscription_id)
    reply = await rpc(
        request, core_of(request).subscriptions.GetSubscription, message, is_read=True, pin=subscription_id
    )
    return respond(reply, reply.response.subscription.object_json)


async def update_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(request, caller.scope, lambda: update_body(request))
    message = pb.UpdateSubscriptionRequest(
        caller=caller.pb(), subscription_id=subscription_id, idempotency=idempotency
    )
    for name in ("price_id", "proration_behavior", "tax_rate_id"):
        if name in body:
            setattr(message, name, body[name])
    if "metadata" in body:
        message.metadata.values.update(body["metadata"])
        message.metadata.SetInParent()
    reply = await rpc(
        request, core_of(request).subscriptions.UpdateSubscription, message, pin=subscription_id
    )
    return respond(reply, reply.response.subscription.object_json)


async def cancel_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, options = await validated_with_key(request, caller.scope, lambda: cancel_options(request))
    message = pb.CancelSubscriptionRequest(
        caller=caller.pb(),
        subscription_id=subscription_id,
        # Spec: the default of at_period_end is not shown — false (cancel now), like prorate.
        at_period_end=options.get("at_period_end", False),
        prorate=options.get("prorate", False),
        idempotency=idempotency,
    )
    reply = await rpc(
        request, core_of(request).subscriptions.CancelSubscription, message, pin=subscription_id
    )
    return respond(reply, reply.response.subscription.object_json)


async def pause_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, _ = await validated_with_key(request, caller.scope, lambda: no_parameters(request))
    message = pb.PauseSubscriptionRequest(
        caller=caller.pb(), subscription_id=subscription_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).subscriptions.PauseSubscription, message, pin=subscription_id)
    return respond(reply, reply.response.subscription.object_json)


async def resume_subscription(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, _ = await validated_with_key(request, caller.scope, lambda: no_parameters(request))
    message = pb.ResumeSubscriptionRequest(
        caller=caller.pb(), subscription_id=subscription_id, idempotency=idempotency
    )
    reply = await rpc(
        request, core_of(request).subscriptions.ResumeSubscription, message, pin=subscription_id
    )
    return respond(reply, reply.response.subscription.object_json)


def no_parameters(request: Request) -> None:
    """Pause and resume take nothing: an unknown query parameter or body field is named, not ignored."""
    parse_query(request, {})
    validate_body(request, ())


async def add_item(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(request, caller.scope, lambda: item_body(request))
    message = pb.AddSubscriptionItemRequest(
        caller=caller.pb(),
        subscription_id=subscription_id,
        price_id=body["priceId"],
        quantity=body.get("quantity", 1),
        metadata=body.get("metadata", {}),
        idempotency=idempotency,
    )
    if "prorationBehavior" in body:
        message.proration_behavior = body["prorationBehavior"]
    reply = await rpc(
        request, core_of(request).subscriptions.AddSubscriptionItem, message, pin=subscription_id
    )
    return respond(reply, reply.response.item.object_json, status=201)


async def list_items(request: Request, subscription_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, ITEM_LIST_QUERY)
    message = pb.ListSubscriptionItemsRequest(
        caller=caller.pb(),
        subscription_id=subscription_id,
        **page_fields(query),
    )
    reply = await rpc(
        request,
        core_of(request).subscriptions.ListSubscriptionItems,
        message,
        is_read=True,
        pin=subscription_id,
    )
    data = (item.object_json for item in reply.response.items)
    return respond(reply, page_json(request, data, reply.response))


async def update_item(request: Request, subscription_id: str, item_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, body = await validated_with_key(request, caller.scope, lambda: item_update_body(request))
    message = pb.UpdateSubscriptionItemRequest(
        caller=caller.pb(),
        subscription_id=subscription_id,
        item_id=item_id,
        quantity=body["quantity"],
        idempotency=idempotency,
    )
    if "prorationBehavior" in body:
        message.proration_behavior = body["prorationBehavior"]
    reply = await rpc(
        request, core_of(request).subscriptions.UpdateSubscriptionItem, message, pin=subscription_id
    )
    return respond(reply, reply.response.item.object_json)


async def remove_item(request: Request, subscription_id: str, item_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency, options = await validated_with_key(request, caller.scope, lambda: remove_options(request))
    message = pb.RemoveSubscriptionItemRequest(
        caller=caller.pb(),
        subscription_id=subscription_id,
        item_id=item_id,
        immediate=options.get("immediate", False),
        idempotency=idempotency,
    )
    reply = await rpc(
        request, core_of(request).subscriptions.RemoveSubscriptionItem, message, pin=subscription_id
    )
    return respond(reply, reply.response.item.object_json)


async def preview_change(request: Request, subscription_id: str) -> HTTPResponse:
    """Changes nothing, yet a POST like any other (DESIGN §6): under an Idempotency-Key a retry gets the
    first answer back, not a preview computed at a later moment."""
    caller = await admit_api_key(request)

    def validate() -> pb.PreviewSubscriptionChangeRequest:
        parse_query(request, {})
        return preview_request(request, caller.pb(), subscription_id)

    idempotency, message = await validated_with_key(request, caller.scope, validate)
    message.idempotency.CopyFrom(idempotency)
    reply = await rpc(request, core_of(request).subscriptions.PreviewSubscriptionChange, message)
    return respond(reply, reply.response.preview.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("subscriptions", url_prefix="/subscriptions")
    one = "/<subscription_id>"
    bp.add_route(create_subscription, "", methods=["POST"], name="create_subscription")
    bp.add_route(list_subscriptions, "", methods=["GET"], name="list_subscriptions")
    bp.add_route(get_subscription, one, methods=["GET"], name="get_subscription")
    bp.add_route(update_subscription, one, methods=["PATCH"], name="update_subscription")
    bp.add_route(cancel_subscription, one + "/cancel", methods=["POST"], name="cancel_subscription")
    bp.add_route(pause_subscription, one + "/pause", methods=["POST"], name="pause_subscription")
    bp.add_route(resume_subscription, one + "/resume", methods=["POST"], name="resume_subscription")
    bp.add_route(preview_change, one + "/preview", methods=["POST"], name="preview_subscription_change")
    bp.add_route(add_item, one + "/items", methods=["POST"], name="add_subscription_item")
    bp.add_route(list_items, one + "/items", methods=["GET"], name="list_subscription_items")
    item = one + "/items/<item_id>"
    bp.add_route(update_item, item, methods=["PATCH"], name="update_subscription_item")
    bp.add_route(remove_item, item, methods=["DELETE"], name="remove_subscription_item")
    return bp
