"""Bearer credentials: API keys (resolved by the core) and dashboard JWTs (verified here)."""

from __future__ import annotations

from dataclasses import dataclass

import jwt
from connect import errors
from connect.v1 import api_key_pb2, api_key_service_pb2, common_pb2
from sanic import Request

from http_gateway.edge.errors import ApiError
from http_gateway.edge.serialization import ENVIRONMENT_NAMES

JWT_ISSUER = "payment-connect"
JWT_TYPE = "merchant"
JWT_ALGORITHM = "HS256"
# Longer than any key or token we issue; refusing early keeps junk from reaching the core.
MAX_CREDENTIAL_LENGTH = 4096
_KEY_PREFIXES = ("sk_live_", "sk_test_", "pk_live_", "pk_test_")


@dataclass(frozen=True, slots=True)
class ApiCaller:
    """A merchant acting through an API key."""

    merchant_id: str
    environment: common_pb2.Environment
    kind: api_key_pb2.ApiKeyKind
    key_id: str = ""  # lets a revoke through this gateway evict the key from its cache (api_key_cache.py)

    @property
    def environment_name(self) -> str:
        return ENVIRONMENT_NAMES.get(self.environment) or "unknown"

    @property
    def scope(self) -> str:
        """Idempotency scope: keys are unique per merchant and environment."""
        return f"{self.merchant_id}:{self.environment_name}"

    def pb(self) -> common_pb2.Caller:
        return common_pb2.Caller(merchant_id=self.merchant_id, environment=self.environment)


def bearer_token(request: Request, *, missing: errors.ErrorCode, invalid: errors.ErrorCode) -> str:
    """The credential after `Bearer `; never echoed back or logged."""
    header = request.headers.get("authorization")
    if header is None or not header.strip():
        raise ApiError.of(missing, "No credentials provided: send Authorization: Bearer <credential>.")
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    # Every key and token we issue is printable ASCII; anything else (raw bytes a client sent, which
    # arrive as lone surrogates) is refused here rather than failing to encode on the way to the core.
    printable = token.isascii() and token.isprintable()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_CREDENTIAL_LENGTH or not printable:
        raise ApiError.of(invalid, "Malformed Authorization header: expected 'Bearer <credential>'.")
    return token


def api_key_request(token: str) -> api_key_service_pb2.AuthenticateApiKeyRequest:
    """The core lookup for a bearer API key; a dashboard token or junk is refused without a core call."""
    if not token.startswith(_KEY_PREFIXES):
        if token.count(".") == 2:
            raise ApiError.of(
                errors.API_KEY_INVALID, "This endpoint needs a secret key, not a dashboard token."
            )
        raise ApiError.of(errors.API_KEY_INVALID, "Invalid API key provided.")
    return api_key_service_pb2.AuthenticateApiKeyRequest(key=token)


def caller_from_reply(reply: api_key_service_pb2.AuthenticateApiKeyResponse) -> ApiCaller:
    return ApiCaller(
        merchant_id=reply.merchant_id, environment=reply.environment, kind=reply.kind, key_id=reply.key_id
    )


def require_secret_key(caller: ApiCaller) -> None:
    """DESIGN §3: publishable keys are for client-side code and may not call merchant operations."""
    if caller.kind != api_key_pb2.API_KEY_KIND_SECRET:
        message = "This operation needs a secret key (sk_…); publishable keys are for client-side code only."
        raise ApiError.of(errors.SECRET_KEY_REQUIRED, message)


def require_test_key(caller: ApiCaller) -> None:
    """Test helpers only ever touch sandbox data."""
    if caller.environment != common_pb2.ENVIRONMENT_TEST:
        message = "Test helpers need a test secret key (sk_test_…)."
        raise ApiError.of(errors.TEST_KEY_REQUIRED, message)


def verify_dashboard_token(token: str, signing_key: str, *, leeway: float = 0.0) -> str:
    """Check a merchant JWT locally (HS256, issuer, type, required claims); returns the merchant id."""
    return verify_dashboard_claims(token, signing_key, leeway=leeway)[0]


def verify_dashboard_claims(token: str, signing_key: str, *, leeway: float = 0.0) -> tuple[str, int]:
    """As `verify_dashboard_token`, with the token version (claim `ver`; 0 for tokens issued before
    versions existed), which the caller compares with the merchant's (DESIGN §10.9)."""
    if token.startswith(_KEY_PREFIXES):
        raise ApiError.of(
            errors.TOKEN_INVALID, "This endpoint needs a dashboard token (JWT), not an API key."
        )
    try:
        claims = jwt.decode(
            token,
            signing_key,
            algorithms=[JWT_ALGORITHM],  # a fixed list: `alg: none` and algorithm swaps are refused
            issuer=JWT_ISSUER,
            leeway=leeway,
            options={"require": ["sub", "exp", "iat", "iss", "typ"]},
        )
    except jwt.ExpiredSignatureError:
        raise ApiError.of(errors.TOKEN_EXPIRED, "The dashboard token has expired; log in again.") from None
    except jwt.PyJWTError:
        raise ApiError.of(errors.TOKEN_INVALID, "Invalid dashboard token.") from None
    subject = claims.get("sub")
    version = claims.get("ver", 0)
    if claims.get("typ") != JWT_TYPE or not isinstance(subject, str) or not subject:
        raise ApiError.of(errors.TOKEN_INVALID, "Invalid dashboard token.")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ApiError.of(errors.TOKEN_INVALID, "Invalid dashboard token.")
    return subject, version


def token_revoked(token_version: int, merchant_version: int) -> bool:
    """A token issued before the merchant's last password change is revoked (DESIGN §10.9)."""
    return token_version < merchant_version
