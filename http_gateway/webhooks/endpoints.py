"""Webhook endpoint routes (secret key): create, list, retrieve, update, delete, list deliveries."""

from __future__ import annotations

from connect.v1 import webhook_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.pagination import PAGE_QUERY, page_fields
from http_gateway.edge.serialization import gateway_json, list_body
from http_gateway.edge.validation import Field, parse_query, validate_body
from http_gateway.pipeline.admission import admit_api_key, check_idempotency, core_of, respond, rpc
from http_gateway.webhooks.serializers import ENDPOINT_STATUS_VALUES

CREATE_FIELDS = (
    Field("url", "str", required=True),
    Field("events", "strings", required=True),
    Field("description", "str"),
)
UPDATE_FIELDS = (
    Field("url", "str"),
    Field("events", "strings"),
    Field("description", "str"),
    Field("status", "str"),
)
DELIVERIES_QUERY = PAGE_QUERY
# As for charges: the proto's 0 means "default", so an explicit limit=0 can only be refused here.


async def create_endpoint(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, CREATE_FIELDS)
    message = webhook_service_pb2.CreateWebhookEndpointRequest(
        caller=caller.pb(), url=body["url"], events=body["events"], idempotency=idempotency
    )
    if "description" in body:
        message.description = body["description"]
    reply = await rpc(request, core_of(request).webhooks.CreateWebhookEndpoint, message)
    return respond(reply, reply.response.webhook_endpoint.object_json, status=201)


async def list_endpoints(request: Request) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = webhook_service_pb2.ListWebhookEndpointsRequest(caller=caller.pb())
    reply = await rpc(request, core_of(request).webhooks.ListWebhookEndpoints, message, is_read=True)
    data = (e.object_json for e in reply.response.webhook_endpoints)
    return respond(reply, list_body(data, url=request.path, has_more=False))


async def get_endpoint(request: Request, endpoint_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    parse_query(request, {})
    message = webhook_service_pb2.GetWebhookEndpointRequest(
        caller=caller.pb(), webhook_endpoint_id=endpoint_id
    )
    reply = await rpc(request, core_of(request).webhooks.GetWebhookEndpoint, message, is_read=True)
    return respond(reply, reply.response.webhook_endpoint.object_json)


async def update_endpoint(request: Request, endpoint_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    body = validate_body(request, UPDATE_FIELDS)
    message = webhook_service_pb2.UpdateWebhookEndpointRequest(
        caller=caller.pb(), webhook_endpoint_id=endpoint_id, idempotency=idempotency
    )
    for name in ("url", "description"):
        if name in body:
            setattr(message, name, body[name])
    if "events" in body:
        message.events.types.extend(body["events"])
    if "status" in body:
        if body["status"] not in ENDPOINT_STATUS_VALUES:
            raise ApiError.invalid("status", "Invalid status: must be enabled or disabled.")
        message.status = ENDPOINT_STATUS_VALUES[body["status"]]  # type: ignore[assignment]
    reply = await rpc(request, core_of(request).webhooks.UpdateWebhookEndpoint, message)
    return respond(reply, reply.response.webhook_endpoint.object_json)


async def delete_endpoint(request: Request, endpoint_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    idempotency = await check_idempotency(request, caller.scope)
    message = webhook_service_pb2.DeleteWebhookEndpointRequest(
        caller=caller.pb(), webhook_endpoint_id=endpoint_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).webhooks.DeleteWebhookEndpoint, message)
    deleted = reply.response.webhook_endpoint_id
    # The core answers only the id: the deletion's confirmation is written here.
    return respond(reply, gateway_json({"id": deleted, "object": "webhook_endpoint", "deleted": True}))


async def list_deliveries(request: Request, endpoint_id: str) -> HTTPResponse:
    caller = await admit_api_key(request)
    query = parse_query(request, DELIVERIES_QUERY)
    message = webhook_service_pb2.ListWebhookDeliveriesRequest(
        caller=caller.pb(),
        webhook_endpoint_id=endpoint_id,
        **page_fields(query),
    )
    reply = await rpc(request, core_of(request).webhooks.ListWebhookDeliveries, message, is_read=True)
    data = (d.object_json for d in reply.response.deliveries)
    return respond(reply, list_body(data, url=request.path, has_more=reply.response.has_more))


def blueprint() -> Blueprint:
    bp = Blueprint("webhooks", url_prefix="/webhooks")
    bp.add_route(create_endpoint, "", methods=["POST"], name="create_webhook_endpoint")
    bp.add_route(list_endpoints, "", methods=["GET"], name="list_webhook_endpoints")
    bp.add_route(get_endpoint, "/<endpoint_id>", methods=["GET"], name="get_webhook_endpoint")
    bp.add_route(update_endpoint, "/<endpoint_id>", methods=["PATCH"], name="update_webhook_endpoint")
    bp.add_route(delete_endpoint, "/<endpoint_id>", methods=["DELETE"], name="delete_webhook_endpoint")
    bp.add_route(
        list_deliveries, "/<endpoint_id>/deliveries", methods=["GET"], name="list_webhook_deliveries"
    )
    return bp
