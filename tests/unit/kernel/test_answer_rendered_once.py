"""A fresh answer of `keyed_rpc` is the response rendered for the stored answer, not a second rendering.

The first run's answer and a retry's replay must be the same bytes (DESIGN §6); answering the response
built for the stored answer makes them so by construction, and renders the result once (the charge's
public JSON and message were built twice per create). A replay, and an answer stored without its
secret (`SecretApart`), still answer as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from connect.v1 import charge_pb2, charge_service_pb2, common_pb2

from core_server.kernel.domain.replays import Replay
from core_server.kernel.transport.idempotent_rpc import SecretApart, keyed_rpc

REQUEST = charge_service_pb2.CreateChargeRequest(
    caller=common_pb2.Caller(merchant_id="acct_x", environment=common_pb2.ENVIRONMENT_TEST),
    idempotency=common_pb2.Idempotency(key="k-1", fingerprint="fp"),
)


class Context:
    def __init__(self) -> None:
        self.trailing: Any = None

    def set_trailing_metadata(self, metadata: Any) -> None:
        self.trailing = metadata


class StoringRunner:
    """Runs the operation, stores `render(result)` as the real runner does, and returns the result."""

    def __init__(self) -> None:
        self.stored: list[bytes] = []

    async def run(
        self,
        request: Any,
        render: Callable[[Any], bytes],
        operation: Callable[[Any], Awaitable[Any]],
        **_: Any,
    ) -> Any:
        result = await operation(None)
        self.stored.append(render(result))
        return result


class ReplayingRunner:
    def __init__(self, stored: bytes) -> None:
        self._stored = stored

    async def run(self, request: Any, render: Any, operation: Any, **_: Any) -> Replay:
        return Replay(self._stored)


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, amount: int) -> charge_service_pb2.CreateChargeResponse:
        self.calls += 1
        return charge_service_pb2.CreateChargeResponse(
            charge=charge_pb2.Charge(id="ch_1", amount=amount, object_json=f'{{"amount":{amount}}}')
        )


async def _operation(_: Any) -> int:
    return 2500


async def test_a_fresh_answer_is_the_stored_rendering_built_once() -> None:
    runner, build = StoringRunner(), Counting()
    response = await keyed_rpc(
        runner,  # type: ignore[arg-type]
        Context(),
        "acct_x:test",
        REQUEST,
        charge_service_pb2.CreateChargeResponse,
        build,
        _operation,
    )
    assert build.calls == 1
    assert response.SerializeToString() == runner.stored[0]
    assert response.charge.amount == 2500


async def test_a_replay_answers_the_stored_bytes() -> None:
    stored = Counting()(2500).SerializeToString()
    context, build = Context(), Counting()
    response = await keyed_rpc(
        ReplayingRunner(stored),  # type: ignore[arg-type]
        context,
        "acct_x:test",
        REQUEST,
        charge_service_pb2.CreateChargeResponse,
        build,
        _operation,
    )
    assert build.calls == 0
    assert response.SerializeToString() == stored
    assert context.trailing == (("idempotent-replayed", "true"),)


async def test_an_answer_stored_without_its_secret_is_answered_with_it() -> None:
    async def restore(_: Any) -> None:
        raise AssertionError("a fresh answer restores nothing")

    runner, build = StoringRunner(), Counting()
    response = await keyed_rpc(
        runner,  # type: ignore[arg-type]
        Context(),
        "acct_x:test",
        REQUEST,
        charge_service_pb2.CreateChargeResponse,
        build,
        _operation,
        secret=SecretApart(without=lambda amount: 0, restore=restore),
    )
    assert response.charge.amount == 2500  # the full result, secret included
    assert charge_service_pb2.CreateChargeResponse.FromString(runner.stored[0]).charge.amount == 0
