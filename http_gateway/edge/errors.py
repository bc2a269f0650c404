"""The one place errors become HTTP: ApiError, gRPC status -> envelope, and Sanic's own exceptions.

Tree of what reaches a client:
    ApiError                      raised by gateway code (auth, validation, rate limit) or built here
    grpc.aio.AioRpcError          from the core; with an ErrorInfo detail it carries the spec's
                                  type/code/param; without one it goes through FALLBACK below
    sanic NotFound / MethodNotAllowed / PayloadTooLarge / other SanicException
    Exception                     anything else: 500 api_error, logged with the request id, no trace
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import grpc
from connect import errors
from google.rpc import error_details_pb2, status_pb2
from sanic import Request, Sanic
from sanic.exceptions import MethodNotAllowed, NotFound, PayloadTooLarge, SanicException
from sanic.response import HTTPResponse, json

logger = logging.getLogger(__name__)

# Spec "Errors" table: the HTTP status of each error type (the contract's catalogue, shared with the core).
SPEC_TYPE_TO_HTTP: Mapping[str, int] = errors.TYPE_HTTP_STATUS

# Used only when an ErrorInfo arrives without a known `type` (a core slip): the canonical google.rpc meaning.
GRPC_CODE_TO_TYPE: Mapping[grpc.StatusCode, str] = {
    grpc.StatusCode.INVALID_ARGUMENT: errors.INVALID_REQUEST,
    grpc.StatusCode.FAILED_PRECONDITION: errors.INVALID_REQUEST,
    grpc.StatusCode.OUT_OF_RANGE: errors.INVALID_REQUEST,
    grpc.StatusCode.ALREADY_EXISTS: errors.INVALID_REQUEST,
    grpc.StatusCode.UNAUTHENTICATED: errors.AUTHENTICATION,
    grpc.StatusCode.PERMISSION_DENIED: errors.AUTHORIZATION,
    grpc.StatusCode.NOT_FOUND: errors.NOT_FOUND,
    grpc.StatusCode.ABORTED: errors.IDEMPOTENCY,
    grpc.StatusCode.RESOURCE_EXHAUSTED: errors.RATE_LIMIT,
}

DETAILS_KEY = "grpc-status-details-bin"


class Retry(Enum):
    """When a failed core call without ErrorInfo may be sent again."""

    NEVER = "never"
    ALWAYS = "always"  # the core guarantees nothing ran (ABORTED: entity busy)
    READS = "reads"  # a mutation may have committed before the connection dropped


@dataclass(frozen=True, slots=True)
class Fallback:
    """How a gRPC status without ErrorInfo is answered after the retry policy is spent."""

    error: errors.ErrorCode
    retry: Retry
    headers: Mapping[str, str] = field(default_factory=dict)


# A request shed for overload, by the gateway's gate or the core's (RESOURCE_EXHAUSTED without ErrorInfo):
# nothing ran, and a retry now would only add to the overload, so it is not retried here.
OVERLOADED = Fallback(errors.SERVICE_UNAVAILABLE, Retry.NEVER, {"Retry-After": "1"})
OVERLOADED_MESSAGE = "The service is overloaded; nothing was done. Retry after the Retry-After seconds."

FALLBACK: Mapping[grpc.StatusCode, Fallback] = {
    grpc.StatusCode.ABORTED: Fallback(errors.SERVICE_BUSY, Retry.ALWAYS, {"Retry-After": "1"}),
    grpc.StatusCode.RESOURCE_EXHAUSTED: OVERLOADED,
    grpc.StatusCode.UNAVAILABLE: Fallback(errors.SERVICE_UNAVAILABLE, Retry.READS, {"Retry-After": "1"}),
    grpc.StatusCode.DEADLINE_EXCEEDED: Fallback(errors.TIMEOUT, Retry.NEVER),
}
DEFAULT_FALLBACK = Fallback(errors.INTERNAL_ERROR, Retry.NEVER)


class ApiError(Exception):
    """An error answered with the spec envelope; `http_status` defaults from the type table."""

    def __init__(
        self,
        type: str,
        code: str,
        message: str,
        param: str | None = None,
        *,
        http_status: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.http_status = http_status or SPEC_TYPE_TO_HTTP.get(type, 500)
        self.headers = dict(headers or {})
        if type == errors.RATE_LIMIT:
            self.headers.setdefault("Retry-After", "1")

    @classmethod
    def of(
        cls,
        error: errors.ErrorCode,
        message: str | None = None,
        param: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> ApiError:
        """An error of the catalogue, with its type and HTTP status and (unless given) its message."""
        return cls(
            error.type, error.code, message or error.message, param, http_status=error.status, headers=headers
        )

    @classmethod
    def invalid(cls, param: str | None, message: str) -> ApiError:
        return cls.of(errors.PARAMETER_INVALID, message, param)

    @classmethod
    def missing(cls, param: str) -> ApiError:
        return cls.of(errors.PARAMETER_MISSING, f"Missing required parameter: {param}.", param)

    def envelope(self, public_base_url: str) -> dict[str, Any]:
        return {
            "error": {
                "type": self.type,
                "code": self.code,
                "message": self.message,
                "param": self.param,
                "doc_url": f"{public_base_url}/docs/errors#{self.code}",
            }
        }


def rich_status(err: grpc.aio.AioRpcError) -> status_pb2.Status | None:
    """The google.rpc.Status from the trailers; read directly rather than via grpc_status.from_call,
    which raises when code/message differ slightly and would turn a usable error into a 500."""
    for key, value in err.trailing_metadata() or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # a corrupt trailer must not hide the status code
                logger.warning("undecodable %s trailer", DETAILS_KEY)
                return None
    return None


def error_info(err: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo | None:
    status = rich_status(err)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def retry_after(err: grpc.aio.AioRpcError) -> str | None:
    """The core's RetryInfo as a Retry-After value: whole seconds, rounded up, at least 1."""
    status = rich_status(err)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return str(max(1, math.ceil(info.retry_delay.ToTimedelta().total_seconds())))
    return None


def should_retry(err: grpc.aio.AioRpcError, *, is_read: bool) -> bool:
    """Only statuses without ErrorInfo are retried: an ErrorInfo is a decided answer, not a hiccup."""
    if error_info(err) is not None:
        return False
    fallback = FALLBACK.get(err.code(), DEFAULT_FALLBACK)
    return fallback.retry is Retry.ALWAYS or (fallback.retry is Retry.READS and is_read)


def api_error_from_rpc(err: grpc.aio.AioRpcError) -> ApiError:
    """Translate a core error; the core's ErrorInfo decides type/code/param, the type decides the status."""
    info = error_info(err)
    if info is not None:
        type_ = info.metadata.get("type") or ""
        if type_ not in SPEC_TYPE_TO_HTTP:
            type_ = GRPC_CODE_TO_TYPE.get(err.code(), errors.API)
        status = rich_status(err)
        message = (status.message if status is not None and status.message else None) or err.details() or ""
        wait = retry_after(err)
        headers = {"Retry-After": wait} if wait is not None else None
        return ApiError(
            type_, info.reason.lower(), message, info.metadata.get("param") or None, headers=headers
        )
    fallback = FALLBACK.get(err.code(), DEFAULT_FALLBACK)
    if fallback is OVERLOADED:
        return overloaded_error()  # counted by the caller; a log line per shed request would add load
    extra = {"grpc_code": err.code().name, "grpc_details": err.details()}
    if err.code() in FALLBACK:
        # An answer the core chose (busy, a dependency switching over, a deadline): the client gets a
        # retryable 503 and the operator the reason, as a warning; a PostgreSQL failover makes a few.
        logger.warning(
            "core answered %s (%s): %d %s",
            err.code().name,
            err.details(),
            fallback.error.status,
            fallback.error.code,
            extra=extra,
        )
    else:
        logger.error("core call failed without error details", extra=extra)
    return ApiError.of(fallback.error, headers=fallback.headers)


def overloaded_error() -> ApiError:
    """503 `service_unavailable` with Retry-After: the answer to a request shed for overload."""
    return ApiError.of(OVERLOADED.error, OVERLOADED_MESSAGE, headers=OVERLOADED.headers)


def error_response(request: Request, err: ApiError) -> HTTPResponse:
    settings = request.app.ctx.settings
    return json(err.envelope(settings.public_base_url), status=err.http_status, headers=err.headers)


def _allowed_methods(request: Request) -> set[str]:
    """The methods the path answers, asked of the router: for a method Sanic does not know at all
    (TRACE, CONNECT) its router names none, and a 405 must still carry `Allow` (RFC 9110)."""
    allowed = set()
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        try:
            request.app.router.get(request.path, method, None)
        except SanicException:
            continue
        allowed.add(method)
    return allowed


def register_error_handlers(app: Sanic) -> None:
    """Every error the app can raise answers with the spec envelope."""

    @app.exception(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> HTTPResponse:
        return error_response(request, exc)

    @app.exception(grpc.aio.AioRpcError)
    async def _rpc_error(request: Request, exc: grpc.aio.AioRpcError) -> HTTPResponse:
        return error_response(request, api_error_from_rpc(exc))

    @app.exception(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> HTTPResponse:
        message = f"Unrecognized request URL ({request.method}: {request.path})."
        return error_response(request, ApiError.of(errors.RESOURCE_MISSING, message))

    @app.exception(MethodNotAllowed)
    async def _method(request: Request, exc: MethodNotAllowed) -> HTTPResponse:
        message = f"Method {request.method} is not allowed on {request.path}."
        allow = ", ".join(sorted(getattr(exc, "allowed_methods", None) or _allowed_methods(request)))
        err = ApiError.of(errors.METHOD_NOT_ALLOWED, message)
        if allow:
            err.headers["Allow"] = allow
        return error_response(request, err)

    @app.exception(PayloadTooLarge)
    async def _too_large(request: Request, exc: PayloadTooLarge) -> HTTPResponse:
        # Sanic raises the same exception for an oversized header block; RFC 6585 gives that its own 431.
        if "header" in str(exc).lower():
            return error_response(request, ApiError.of(errors.REQUEST_HEADERS_TOO_LARGE))
        err = ApiError.of(errors.REQUEST_TOO_LARGE)
        return error_response(request, err)

    @app.exception(SanicException)
    async def _sanic(request: Request, exc: SanicException) -> HTTPResponse:
        status = int(getattr(exc, "status_code", 500) or 500)
        if status < 500:
            err = ApiError.of(errors.REQUEST_INVALID)
            err.http_status = status
        else:
            logger.error("server error", exc_info=exc)
            err = ApiError.of(errors.INTERNAL_ERROR)
            err.http_status = status
        return error_response(request, err)

    @app.exception(Exception)
    async def _unexpected(request: Request, exc: Exception) -> HTTPResponse:
        logger.error("unhandled error", exc_info=exc)
        return error_response(request, ApiError.of(errors.INTERNAL_ERROR))
