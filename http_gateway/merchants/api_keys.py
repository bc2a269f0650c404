"""API key management routes (dashboard JWT): create, list, revoke."""

from __future__ import annotations

from connect.v1 import api_key_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.serialization import ENVIRONMENT_VALUES, list_body
from http_gateway.edge.validation import Field, parse_query, validate_body
from http_gateway.pipeline.admission import (
    admit_dashboard,
    api_key_cache,
    check_idempotency,
    core_of,
    respond,
    rpc,
)

CREATE_FIELDS = (Field("name", "str"), Field("environment", "str", required=True))


def dashboard_scope(merchant_id: str) -> str:
    """Idempotency scope of JWT routes: one per merchant, apart from its API-key scopes."""
    return f"{merchant_id}:dashboard"


async def create_key(request: Request) -> HTTPResponse:
    merchant_id = await admit_dashboard(request)
    idempotency = await check_idempotency(request, dashboard_scope(merchant_id))
    body = validate_body(request, CREATE_FIELDS)
    environment = ENVIRONMENT_VALUES.get(body["environment"])
    if environment is None:
        raise ApiError.invalid("environment", "Invalid environment: must be live or test.")
    message = api_key_service_pb2.CreateApiKeyRequest(
        merchant_id=merchant_id,
        name=body.get("name", ""),
        environment=environment,  # type: ignore[arg-type]
        idempotency=idempotency,
    )
    reply = await rpc(request, core_of(request).api_keys.CreateApiKey, message)
    return respond(reply, reply.response.api_key.object_json, status=201)


async def list_keys(request: Request) -> HTTPResponse:
    merchant_id = await admit_dashboard(request)
    parse_query(request, {})
    message = api_key_service_pb2.ListApiKeysRequest(merchant_id=merchant_id)
    reply = await rpc(request, core_of(request).api_keys.ListApiKeys, message, is_read=True)
    data = (k.object_json for k in reply.response.api_keys)
    return respond(reply, list_body(data, url=request.path, has_more=False))


async def revoke_key(request: Request, key_id: str) -> HTTPResponse:
    merchant_id = await admit_dashboard(request)
    idempotency = await check_idempotency(request, dashboard_scope(merchant_id))
    message = api_key_service_pb2.RevokeApiKeyRequest(
        merchant_id=merchant_id, key_id=key_id, idempotency=idempotency
    )
    reply = await rpc(request, core_of(request).api_keys.RevokeApiKey, message)
    api_key_cache(request).evict_key(reply.response.api_key.id)  # other gateways: within their TTL
    return respond(reply, reply.response.api_key.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("keys", url_prefix="/keys")
    bp.add_route(create_key, "", methods=["POST"], name="create_key")
    bp.add_route(list_keys, "", methods=["GET"], name="list_keys")
    bp.add_route(revoke_key, "/<key_id>", methods=["DELETE"], name="revoke_key")
    return bp
