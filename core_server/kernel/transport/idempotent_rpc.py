"""The one path of every mutating RPC: the request's Idempotency-Key in its scope, the use case run at most
once under it, and the answer — fresh, or the stored bytes of the first run replayed (DESIGN §6).

`build` makes the response message from the use case's result; the same function renders the bytes a
retry with the same key replays, so a replay is byte for byte the first answer. The use case sees only
the `Claim` and stores `claim.completion(result)` in its own transaction: no render reaches below here.

An answer that carries a secret is never stored in clear, one of two ways, as the secret is kept:
- `sealed=True`: the whole answer is stored sealed (AES-GCM, bound to the key's scope and key) and opened
  for a replay — an API key's or a portal session's creation, whose secret is otherwise kept only as a
  digest;
- `secret=SecretApart(...)`: the answer is stored without the secret, which a replay puts back from where
  the core keeps it anyway — a webhook endpoint's sealed signing secret, a CLI session's derived one.

A create whose write claims the key in its own statement (payments' charge) passes `first_claim=True`.
`tests/unit/kernel/test_one_idempotency_path.py` calls every RPC whose request has an `idempotency`
field and fails when one does not reach the runner through here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import grpc

from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.domain.replays import Replay
from core_server.kernel.transport.mapping import api_scope, idempotency_from_pb, owner_from_caller
from core_server.rpc.status import answer

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class SecretApart(Generic[T, R]):
    """The answer is stored as `build(without(result))`; a replay's response gets its secret back from
    `restore` (which may leave it out when the object is gone)."""

    without: Callable[[T], T]
    restore: Callable[[R], Awaitable[None]]


async def idempotent_rpc(
    runner: IdempotentRunner,
    context: grpc.aio.ServicerContext,
    request: Any,
    response_type: type[R],
    build: Callable[[T], R],
    operation: Callable[[Owner, Claim[T] | None], Awaitable[T]],
    *,
    sealed: bool = False,
    secret: SecretApart[T, R] | None = None,
    first_claim: bool = False,
) -> R:
    """For the API's requests, which carry `caller` and `idempotency`: the key's scope is the caller's
    merchant environment."""
    owner = owner_from_caller(request.caller)
    return await keyed_rpc(
        runner,
        context,
        api_scope(owner),
        request,
        response_type,
        build,
        lambda claim: operation(owner, claim),
        sealed=sealed,
        secret=secret,
        first_claim=first_claim,
    )


async def keyed_rpc(
    runner: IdempotentRunner,
    context: grpc.aio.ServicerContext,
    scope: str,
    request: Any,
    response_type: type[R],
    build: Callable[[T], R],
    operation: Callable[[Claim[T] | None], Awaitable[T]],
    *,
    sealed: bool = False,
    secret: SecretApart[T, R] | None = None,
    first_claim: bool = False,
) -> R:
    """For requests keyed in a scope of their own (sign-up, the dashboard's key management, a checkout
    page, a portal link): `request.idempotency` under `scope`."""
    idempotency = idempotency_from_pb(scope, request.idempotency)
    # The response rendered for the stored answer, answered as it is when the run returns that very
    # result: a fresh answer is the stored one by construction, and the result is rendered once.
    rendered: list[tuple[T, R]] = []

    def render(result: T) -> bytes:
        kept = secret.without(result) if secret is not None else result
        response = build(kept)
        if kept is result:
            rendered[:] = [(result, response)]
        return bytes(response.SerializeToString())  # type: ignore[attr-defined]

    result = await runner.run(idempotency, render, operation, sealed=sealed, first_claim=first_claim)
    if rendered and rendered[0][0] is result:
        response = rendered[0][1]
    else:
        response = answer(context, response_type, result, build)
    if secret is not None and isinstance(result, Replay):
        await secret.restore(response)
    return response
