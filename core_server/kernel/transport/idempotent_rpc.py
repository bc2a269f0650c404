"""The shape every mutating RPC shares: the caller's tenant, the request's Idempotency-Key, the use case
run at most once under it, and the answer — fresh, or the stored bytes of the first run replayed.

`build` makes the response message from the use case's result; the same function renders the bytes a
retry with the same key replays, so a replay is byte for byte the first answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.mapping import api_scope, idempotency_from_pb, owner_from_caller
from core_server.rpc.status import answer

T = TypeVar("T")
R = TypeVar("R")


async def idempotent_rpc(
    runner: IdempotentRunner,
    context: grpc.aio.ServicerContext,
    request: Any,
    response_type: type[R],
    build: Callable[[T], R],
    operation: Callable[[Owner, Claim[T] | None], Awaitable[T]],
) -> R:
    """`request` carries `caller` and `idempotency` (every mutating request of the API does)."""
    owner = owner_from_caller(request.caller)

    def render(result: T) -> bytes:
        return bytes(build(result).SerializeToString())  # type: ignore[attr-defined]

    result = await runner.run(
        idempotency_from_pb(api_scope(owner), request.idempotency),
        render,
        lambda claim: operation(owner, claim),
    )
    return answer(context, response_type, result, build)
