"""The stored answer of an API key creation is sealed by the application, behind its AnswerSealer port."""

from __future__ import annotations

import os

import pytest

from core_server.kernel.application.ports import IdempotencyRequest
from core_server.merchants.application.api_keys import ApiKeyService, answer_context
from core_server.security.keyring import Keyring
from core_server.security.secret_box import SecretBox, SecretUnreadable

REQUEST = IdempotencyRequest(scope="mer_1:dashboard", key="k-1", fingerprint="f")


def service(box: SecretBox) -> ApiKeyService:
    # Sealing touches neither the repository nor the clock.
    return ApiKeyService(keys=None, clock=None, answer_sealer=box)  # type: ignore[arg-type]


def test_a_sealed_answer_opens_for_its_own_scope_and_key_only() -> None:
    keys = service(SecretBox(Keyring(os.urandom(32)), "idempotent-answer"))
    sealed = keys.seal_answer(REQUEST, b"the answer with sk_test_secret")
    assert b"sk_test_secret" not in sealed
    assert keys.open_answer(REQUEST, sealed) == b"the answer with sk_test_secret"
    other = IdempotencyRequest(scope=REQUEST.scope, key="k-2", fingerprint="f")
    with pytest.raises(SecretUnreadable):
        keys.open_answer(other, sealed)
    assert answer_context(REQUEST) == "idempotent-answer:mer_1:dashboard:k-1"
