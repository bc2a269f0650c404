"""An answer that carries a secret is stored sealed by the runner (`sealed=True`), and opened for a replay."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from core_server.kernel.application.clocks import SettableClock
from core_server.kernel.application.idempotency import (
    Claim,
    IdempotentRunner,
    KeyTaken,
    answer_context,
)
from core_server.kernel.application.ports import (
    ClaimOutcome,
    IdempotencyCompletion,
    IdempotencyRecord,
    IdempotencyRequest,
)
from core_server.kernel.domain.replays import Replay, StoredError
from core_server.security.keyring import Keyring
from core_server.security.secret_box import SecretBox, SecretUnreadable

REQUEST = IdempotencyRequest(scope="mer_1:dashboard", key="k-1", fingerprint="f")
ANSWER = b"the answer with sk_test_secret"


class CompletingStore:
    """Keeps each completed answer as stored, and replays it for the same key."""

    def __init__(self) -> None:
        self.stored: dict[tuple[str, str], bytes] = {}

    async def claim(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        return await self.check(request, now)

    async def check(self, request: IdempotencyRequest, now: datetime) -> IdempotencyRecord:
        response = self.stored.get((request.scope, request.key))
        if response is None:
            return IdempotencyRecord(ClaimOutcome.CLAIMED, owner="owner-1")
        return IdempotencyRecord(ClaimOutcome.REPLAY, response=response)

    async def complete(self, completion: IdempotencyCompletion) -> None:
        self.stored[(completion.scope, completion.key)] = completion.response

    async def store_error(self, request: IdempotencyRequest, error: StoredError, owner: str | None) -> None:
        raise AssertionError("no state error here")

    async def release(self, request: IdempotencyRequest, owner: str | None) -> None:
        raise AssertionError("nothing fails here")


def runner(store: CompletingStore) -> tuple[IdempotentRunner, SecretBox]:
    box = SecretBox(Keyring(os.urandom(32)), "idempotent-answer")
    return IdempotentRunner(store, SettableClock(datetime(2026, 1, 1, tzinfo=UTC)), answer_sealer=box), box


async def created(_claim: Claim[bytes] | None) -> bytes:
    return ANSWER


async def test_a_sealed_answer_is_stored_sealed_and_replayed_in_clear() -> None:
    store = CompletingStore()
    keys, box = runner(store)
    assert await keys.run(REQUEST, bytes, created, sealed=True) == ANSWER
    stored = store.stored[(REQUEST.scope, REQUEST.key)]
    assert b"sk_test_secret" not in stored
    assert (
        box.open_blob(stored, answer_context(REQUEST)) == ANSWER
    )  # the context rotate_keys.py opens it with
    assert answer_context(REQUEST) == "idempotent-answer:mer_1:dashboard:k-1"
    assert await keys.run(REQUEST, bytes, created, sealed=True) == Replay(ANSWER)


async def test_a_sealed_answer_opens_for_its_own_scope_and_key_only() -> None:
    store = CompletingStore()
    keys, _ = runner(store)
    await keys.run(REQUEST, bytes, created, sealed=True)
    other = IdempotencyRequest(scope=REQUEST.scope, key="k-2", fingerprint="f")
    store.stored[(other.scope, other.key)] = store.stored[(REQUEST.scope, REQUEST.key)]  # moved in the table
    with pytest.raises(SecretUnreadable):
        await keys.run(other, bytes, created, sealed=True)


async def test_an_answer_not_asked_sealed_is_stored_as_rendered() -> None:
    store = CompletingStore()
    keys, _ = runner(store)
    await keys.run(REQUEST, bytes, created)
    assert store.stored[(REQUEST.scope, REQUEST.key)] == ANSWER


async def test_a_first_write_create_seals_and_replays_the_same_way() -> None:
    """first_claim: the create's own statement stores the claim's answer; a retry finds the key taken."""
    store = CompletingStore()
    keys, _ = runner(store)

    async def create(claim: Claim[bytes] | None) -> bytes:
        assert claim is not None
        if (REQUEST.scope, REQUEST.key) in store.stored:
            raise KeyTaken
        first = claim.first_write(ANSWER, datetime(2026, 1, 1, tzinfo=UTC))
        store.stored[(first.request.scope, first.request.key)] = first.response
        return ANSWER

    assert await keys.run(REQUEST, bytes, create, sealed=True, first_claim=True) == ANSWER
    assert b"sk_test_secret" not in store.stored[(REQUEST.scope, REQUEST.key)]
    assert await keys.run(REQUEST, bytes, create, sealed=True, first_claim=True) == Replay(ANSWER)


async def test_a_runner_without_a_sealer_refuses_to_store_a_secret_in_clear() -> None:
    keys = IdempotentRunner(CompletingStore(), SettableClock(datetime(2026, 1, 1, tzinfo=UTC)))
    with pytest.raises(RuntimeError):
        await keys.run(REQUEST, bytes, created, sealed=True)
