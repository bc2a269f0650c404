"""Domain ⇄ protobuf conversion: the only module that knows both."""

from __future__ import annotations

from connect import errors
from connect.v1 import (
    common_pb2,
)

from core_server.kernel.application.owner import Owner
from core_server.kernel.application.ports import IdempotencyRequest
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid, Unauthenticated

ENVIRONMENT_TO_PB = {
    Environment.LIVE: common_pb2.ENVIRONMENT_LIVE,
    Environment.TEST: common_pb2.ENVIRONMENT_TEST,
}
ENVIRONMENT_FROM_PB: dict[int, Environment] = {v: k for k, v in ENVIRONMENT_TO_PB.items()}


def environment_from_pb(value: int) -> Environment:
    try:
        return ENVIRONMENT_FROM_PB[value]
    except KeyError:
        raise ParameterInvalid("environment must be 'live' or 'test'.", param="environment") from None


def owner_from_caller(caller: common_pb2.Caller) -> Owner:
    """The gateway always sets the caller; a call without one is not authenticated."""
    if not caller.merchant_id or caller.environment not in ENVIRONMENT_FROM_PB:
        raise Unauthenticated("The call carries no merchant.", code=errors.CALLER_MISSING.code)
    return Owner(caller.merchant_id, ENVIRONMENT_FROM_PB[caller.environment])


def api_scope(owner: Owner) -> str:
    return f"{owner.merchant_id}:{owner.environment.value}"


def idempotency_from_pb(scope: str, idem: common_pb2.Idempotency) -> IdempotencyRequest | None:
    if not idem.key:
        return None
    return IdempotencyRequest(scope=scope, key=idem.key, fingerprint=idem.fingerprint)
