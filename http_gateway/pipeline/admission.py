"""Checks before every operation (DESIGN §5a: auth, rate limit, version, idempotency) and core calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from connect import errors
from connect.v1 import common_pb2, idempotency_service_pb2, merchant_service_pb2
from google.protobuf.message import Message
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.config import Settings
from http_gateway.core_client.grpc_clients import CoreClients, CoreReply, call_core
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.api_key_cache import ApiKeyCache
from http_gateway.pipeline.auth import (
    ApiCaller,
    api_key_request,
    bearer_token,
    caller_from_reply,
    require_secret_key,
    require_test_key,
    token_revoked,
    verify_dashboard_claims,
)
from http_gateway.pipeline.idempotency import idempotency_for
from http_gateway.pipeline.rate_limit import RateLimiter
from http_gateway.pipeline.versions import HEADER as VERSION_HEADER
from http_gateway.pipeline.versions import resolve_version

T = TypeVar("T")


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.ctx.settings
    return settings


def core_of(request: Request) -> CoreClients:
    core: CoreClients = request.app.ctx.core
    return core


def client_address(request: Request) -> str:
    """Sanic's remote_addr honours the trusted proxy settings; ip is the socket peer."""
    return request.remote_addr or request.ip or "unknown"


async def rpc(
    request: Request, method: Any, message: Message, *, is_read: bool = False, pin: str | None = None
) -> CoreReply[Any]:
    """One core call; `pin` (an entity id) sends it to the core that serves that entity when several
    are listed (core_client/affinity.py), retrying balanced if that core fails."""
    first = core_of(request).pinned(method, pin) if pin else method
    return await call_core(
        settings_of(request),
        first,
        message,
        request_id=request.ctx.request_id,
        is_read=is_read,
        retry_method=method,
        gate=getattr(request.app.ctx, "core_gate", None),
    )


def respond(reply: CoreReply[Any], body: str, status: int = 200) -> HTTPResponse:
    """The JSON text as it is: an object the core rendered (`object_json`), a list written around such
    objects (`edge.serialization.list_body`), or one of the gateway's own answers (`gateway_json`) —
    never parsed and dumped again. A replayed idempotent result says so and keeps its status code."""
    headers = {"Idempotent-Replayed": "true"} if reply.replayed else None
    return HTTPResponse(body, status=status, headers=headers, content_type="application/json")


async def _count(request: Request, subject: str, limit: int) -> None:
    limiter: RateLimiter = request.app.ctx.rate_limiter
    decision = await limiter.hit(subject, limit)
    request.ctx.rate_limit = decision  # the response middleware turns it into X-RateLimit-* headers
    if not decision.allowed:
        raise decision.error()


async def _count_address(request: Request) -> None:
    """Requests without a valid credential are limited per client address at the test rate."""
    await _count(request, f"ip:{client_address(request)}", settings_of(request).rate_limit_anonymous)


def _version(request: Request) -> None:
    request.ctx.service_version = resolve_version(request.headers.get(VERSION_HEADER))


def api_key_cache(request: Request) -> ApiKeyCache:
    """The app's cache of resolved keys, made on first use (one per worker process)."""
    cache: ApiKeyCache | None = getattr(request.app.ctx, "api_key_cache", None)
    if cache is None:
        cache = request.app.ctx.api_key_cache = ApiKeyCache(settings_of(request).api_key_cache_seconds)
    return cache


async def _authenticate(request: Request, token: str) -> ApiCaller:
    lookup = api_key_request(token)
    reply = await rpc(request, core_of(request).api_keys.AuthenticateApiKey, lookup, is_read=True)
    return caller_from_reply(reply.response)


async def admit_api_key(request: Request, *, test_only: bool = False) -> ApiCaller:
    """Secret-key routes: the core resolves the key (or the short-lived cache has it), then the merchant's
    per-environment limit applies."""
    cache = api_key_cache(request)
    try:
        token = bearer_token(request, missing=errors.API_KEY_MISSING, invalid=errors.API_KEY_INVALID)
        caller = await cache.resolve(token, lambda: _authenticate(request, token))
    except ApiError as err:
        if err.type == errors.AUTHENTICATION:
            await _count_address(request)  # brute-forcing keys is limited like any anonymous caller
        raise
    settings = settings_of(request)
    live = caller.environment == common_pb2.ENVIRONMENT_LIVE
    limit = settings.rate_limit_live if live else settings.rate_limit_test
    await _count(request, f"{caller.merchant_id}:{caller.environment_name}", limit)
    _version(request)
    require_secret_key(caller)
    if test_only:
        require_test_key(caller)
    return caller


async def admit_dashboard(request: Request) -> str:
    """JWT routes (profile, key management); returns the merchant id from the verified token."""
    try:
        token = bearer_token(request, missing=errors.TOKEN_MISSING, invalid=errors.TOKEN_INVALID)
    except ApiError:
        await _count_address(request)
        raise
    return await admit_dashboard_token(request, token)


async def admit_dashboard_token(request: Request, token: str) -> str:
    """As `admit_dashboard` for a token held elsewhere (the dashboard pages keep it in their session)."""
    settings = settings_of(request)
    try:
        merchant_id, token_version = verify_dashboard_claims(token, settings.jwt_signing_key)
    except ApiError:
        await _count_address(request)
        raise
    await _count(request, f"{merchant_id}:dashboard", settings.rate_limit_live)
    _version(request)
    await _check_not_revoked(request, merchant_id, token_version)
    return merchant_id


async def _check_not_revoked(request: Request, merchant_id: str, token_version: int) -> None:
    """A password change revokes the tokens issued before it: the merchant's current token version is
    read from the core on every dashboard call (rare calls; no cache, so a revocation holds at once)."""
    lookup = merchant_service_pb2.GetMerchantRequest(merchant_id=merchant_id)
    reply = await rpc(request, core_of(request).merchants.GetMerchant, lookup, is_read=True)
    if token_revoked(token_version, reply.response.merchant.token_version):
        raise ApiError.of(
            errors.TOKEN_INVALID, "This dashboard token was revoked by a password change; log in again."
        )


async def admit_public(request: Request) -> None:
    """Sign-up, login and the hosted checkout carry no credential: limited per client address."""
    await _count_address(request)
    _version(request)


async def check_idempotency(request: Request, scope: str) -> common_pb2.Idempotency:
    """Refuse a reused key with another request before validation runs, so the 409 wins over a 400."""
    idempotency = idempotency_for(request)
    if idempotency.key:
        await _check_key(request, scope, idempotency)
    return idempotency


async def _check_key(request: Request, scope: str, idempotency: common_pb2.Idempotency) -> None:
    check = idempotency_service_pb2.CheckIdempotencyKeyRequest(scope=scope, idempotency=idempotency)
    await rpc(request, core_of(request).idempotency.CheckIdempotencyKey, check, is_read=True)


async def validated_with_key(
    request: Request, scope: str, validate: Callable[[], T]
) -> tuple[common_pb2.Idempotency, T]:
    """The Idempotency message and `validate()`'s result, with check_idempotency's guarantee (a reused key
    with another request is a 409, never a 400) for one core call less on the usual path.

    The early check matters only when validation here fails: a valid request goes to the core, whose
    claim answers a mismatched, running or finished key before the operation runs anything.
    """
    idempotency = idempotency_for(request)
    try:
        return idempotency, validate()
    except ApiError:
        if idempotency.key:
            await _check_key(request, scope, idempotency)
        raise
