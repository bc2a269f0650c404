"""The one table from domain and infrastructure errors to gRPC status codes and rich details.

Domain errors travel as `google.rpc.Status` with one `ErrorInfo` (reason = the spec code,
metadata = type and param); the gateway turns that into the HTTP envelope. Infrastructure
failures carry no ErrorInfo: ABORTED means "busy, nothing ran"; UNAVAILABLE means "try later".
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from connect import errors
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from core_server.actors import ActorStopped, EntityBusy, LeaseLost, TurnInterrupted
from core_server.db.errors import StaleFence, StorageUnavailable
from core_server.kernel.domain.errors import DomainError, RateLimited, StateConflict
from core_server.kernel.domain.replays import Replay, ReplayedError
from core_server.locking.errors import LockServiceUnavailable
from core_server.metrics import IDEMPOTENT_REPLAYS, RPC_SECONDS
from core_server.rpc.request_context import request_id_var
from core_server.security.kdf_pool import KdfPoolSaturated

logger = logging.getLogger(__name__)

# The gateway writes the one access line of a request (with its request id); the core logs a call that
# succeeded only when it was this slow (or at DEBUG), and every call that did not.
SLOW_CALL_SECONDS = 0.25

ERROR_DOMAIN = "connect.v1"
DETAILS_KEY = "grpc-status-details-bin"
REPLAYED_KEY = "idempotent-replayed"

TYPE_TO_CODE: dict[str, grpc.StatusCode] = {
    errors.INVALID_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    errors.AUTHENTICATION: grpc.StatusCode.UNAUTHENTICATED,
    errors.AUTHORIZATION: grpc.StatusCode.PERMISSION_DENIED,
    errors.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    errors.IDEMPOTENCY: grpc.StatusCode.ABORTED,
    errors.RATE_LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.API: grpc.StatusCode.INTERNAL,
    errors.GATEWAY: grpc.StatusCode.UNAVAILABLE,
}

# Failures after which a retry may succeed; none of them leaves a half-applied change behind (an
# interrupted turn's writes are whole statements, and its claim stays so a retry cannot run it twice).
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ActorStopped,
    LeaseLost,
    TurnInterrupted,
    StaleFence,
    StorageUnavailable,
    LockServiceUnavailable,
    KdfPoolSaturated,  # a login flood: refused at once rather than queued (security/kdf_pool.py)
    TimeoutError,
)


def domain_status(error: DomainError) -> tuple[grpc.StatusCode, bytes]:
    code = TYPE_TO_CODE.get(error.type, grpc.StatusCode.INTERNAL)
    if isinstance(error, StateConflict):
        code = grpc.StatusCode.FAILED_PRECONDITION
    metadata = {"type": error.type}
    if error.param:
        metadata["param"] = error.param
    info = error_details_pb2.ErrorInfo(reason=error.code, domain=ERROR_DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if isinstance(error, RateLimited):
        # The canonical google.rpc way to say when to retry; the gateway answers it as Retry-After.
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromTimedelta(error.retry_after)
        retry_detail = any_pb2.Any()
        retry_detail.Pack(retry)
        details.append(retry_detail)
    status = status_pb2.Status(code=code.value[0], message=error.message, details=details)
    return code, status.SerializeToString()


R = TypeVar("R")
Method = Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[R]]


def rpc(method: Method[R]) -> Method[R]:
    """Wraps a servicer method: request id for logs, and every exception through the table above.

    A call that succeeded is logged only when slow (SLOW_CALL_SECONDS) or at DEBUG: the gateway's access
    line already says it happened; one that failed is logged with its code, at INFO or above."""

    # The OK series of this method, labelled on its first call (`labels()` validates and locks each time).
    succeeded: list[Any] = []

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> R:
        metadata = dict(context.invocation_metadata() or ())
        request_id = metadata.get("x-request-id")
        token = request_id_var.set(None if request_id is None else str(request_id))
        started = time.perf_counter()
        try:
            failure: tuple[grpc.StatusCode, str, bytes | None]
            try:
                response = await method(self, request, context)
                elapsed = time.perf_counter() - started
                if not succeeded:
                    succeeded.append(RPC_SECONDS.labels(method.__name__, "OK"))
                succeeded[0].observe(elapsed)
                if elapsed >= SLOW_CALL_SECONDS:
                    logger.info("rpc %s OK %.1fms (slow)", method.__name__, elapsed * 1000)
                else:
                    logger.debug("rpc %s OK %.1fms", method.__name__, elapsed * 1000)
                return response
            except DomainError as exc:
                if isinstance(exc, ReplayedError):
                    IDEMPOTENT_REPLAYS.inc()
                domain_code, domain_details = domain_status(exc)
                failure = (domain_code, exc.message, domain_details)
            except EntityBusy:
                failure = (grpc.StatusCode.ABORTED, "The object is busy; nothing was changed.", None)
            except UNAVAILABLE_ERRORS as exc:
                # The reason (the driver's first line: a refused host, a read-only standby) names the
                # dependency at fault, so a failover reads as one in the log, not as a bare class name.
                reason = (str(exc).strip().splitlines() or [""])[0][:200]
                logger.warning("%s unavailable: %s %s", method.__name__, type(exc).__name__, reason)
                failure = (grpc.StatusCode.UNAVAILABLE, "A dependency is unavailable; retry later.", None)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("%s failed", method.__name__)
                failure = (grpc.StatusCode.INTERNAL, "Internal error.", None)
            code, message, details = failure
            elapsed = time.perf_counter() - started
            RPC_SECONDS.labels(method.__name__, code.name).observe(elapsed)
            logger.info("rpc %s %s %.1fms", method.__name__, code.name, elapsed * 1000)
            trailing = ((DETAILS_KEY, details),) if details is not None else ()
            await context.abort(code, message, trailing_metadata=trailing)
            raise AssertionError("unreachable: abort raises")
        finally:
            request_id_var.reset(token)

    return wrapper


def mark_replayed(context: grpc.aio.ServicerContext) -> None:
    context.set_trailing_metadata(((REPLAYED_KEY, "true"),))


def answer(
    context: grpc.aio.ServicerContext,
    response_type: Any,
    result: Any,
    build: Callable[[Any], R],
) -> R:
    """The response for a fresh result, or the stored bytes of a replayed one (marked for the gateway)."""
    if isinstance(result, Replay):
        IDEMPOTENT_REPLAYS.inc()
        mark_replayed(context)
        return response_type.FromString(result.response)
    return build(result)
