"""Developers: the merchant's API key pairs; create one (its secret shown once, on the answer page
itself, never stored for later) and revoke one."""

from __future__ import annotations

from connect.v1 import api_key_service_pb2, common_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.access import (
    Signed,
    core_action,
    page_flash,
    signed_in_action,
    signed_in_page,
    store_of,
)
from http_gateway.dashboard.forms import idempotency
from http_gateway.dashboard.navigation import BASE
from http_gateway.pipeline.admission import api_key_cache, core_of, rpc

DEVELOPERS = f"{BASE}/developers"
_ENVIRONMENT_LABELS = {common_pb2.ENVIRONMENT_TEST: "test", common_pb2.ENVIRONMENT_LIVE: "live"}


async def _page(request: Request, signed: Signed, created: object = None, status: int = 200) -> HTTPResponse:
    message = api_key_service_pb2.ListApiKeysRequest(merchant_id=signed.merchant_id)
    reply = await rpc(request, core_of(request).api_keys.ListApiKeys, message, is_read=True)
    env = signed.caller.environment
    keys = [k for k in reply.response.api_keys if k.environment == env]
    context = {"keys": keys, "created": created, "mode": _ENVIRONMENT_LABELS.get(env, "")}
    flash = await page_flash(request, signed)
    return rendering.render(
        request, "developers.html", context, session=signed.session, flash=flash, status=status
    )


@signed_in_page
async def developers(request: Request, signed: Signed) -> HTTPResponse:
    return await _page(request, signed)


@signed_in_action
async def create_key(request: Request, signed: Signed) -> HTTPResponse:
    """The one answer that shows the secret: rendered directly (no redirect), so it is never stored."""
    message = api_key_service_pb2.CreateApiKeyRequest(
        merchant_id=signed.merchant_id,
        name=signed.form.get("name", "").strip(),
        environment=signed.caller.environment,
        idempotency=idempotency(signed.form, "/keys"),
    )
    reply = await core_action(DEVELOPERS, rpc(request, core_of(request).api_keys.CreateApiKey, message))
    return await _page(request, signed, created=reply.response.api_key, status=201)


@signed_in_action
async def revoke_key(request: Request, signed: Signed, key_id: str) -> HTTPResponse:
    message = api_key_service_pb2.RevokeApiKeyRequest(
        merchant_id=signed.merchant_id,
        key_id=key_id,
        idempotency=idempotency(signed.form, f"/keys/{key_id}/revoke"),
    )
    reply = await core_action(DEVELOPERS, rpc(request, core_of(request).api_keys.RevokeApiKey, message))
    api_key_cache(request).evict_key(reply.response.api_key.id)
    await store_of(request).flash(signed.session, "The key was revoked.")
    return rendering.see_other(DEVELOPERS)
