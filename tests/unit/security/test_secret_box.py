"""SecretBox: AES-256-GCM under a keyring; a sealed secret opens only with its key and on its own row, and
a value sealed under an older key still opens (by its key id) until a rotation re-seals it."""

from __future__ import annotations

import os

import pytest

from core_server.kernel.domain.sealed import Sealed
from core_server.security.keyring import Keyring, key_id_of
from core_server.security.secret_box import SecretBox, SecretUnreadable, blob_sealed

SECRET = "whsec_abcdefghijklmnopqrstuvwxyz012345"
A, B, C = os.urandom(32), os.urandom(32), os.urandom(32)


def box(current: bytes, *older: bytes) -> SecretBox:
    return SecretBox(Keyring(current, older), "webhook-secret")


def test_seal_and_open_round_trip_without_the_plaintext_in_the_sealed_bytes() -> None:
    sealed = box(A).seal(SECRET, "we_1")
    assert sealed.key_id == key_id_of(A) and len(sealed.key_id) == 8
    assert SECRET.encode() not in sealed.ciphertext
    assert box(A).open(sealed, "we_1") == SECRET
    assert box(A).seal(SECRET, "we_1") != sealed  # a fresh nonce each time


def test_another_row_another_key_or_a_flipped_bit_cannot_open_it() -> None:
    sealed = box(A).seal(SECRET, "we_1")
    with pytest.raises(SecretUnreadable):
        box(A).open(sealed, "we_2")
    with pytest.raises(SecretUnreadable, match="not configured"):
        box(B).open(sealed, "we_1")
    with pytest.raises(SecretUnreadable):
        box(B, A).open(Sealed(key_id_of(B), sealed.ciphertext), "we_1")  # a lying key id
    tampered = sealed.ciphertext[:-1] + bytes([sealed.ciphertext[-1] ^ 1])
    with pytest.raises(SecretUnreadable):
        box(A).open(Sealed(sealed.key_id, tampered), "we_1")
    with pytest.raises(SecretUnreadable):
        box(A).open(Sealed(sealed.key_id, b"\x01short"), "we_1")


def test_the_purpose_separates_keys() -> None:
    sealed = box(A).seal(SECRET, "we_1")
    with pytest.raises(SecretUnreadable):
        SecretBox(Keyring(A), "idempotent-answer").open(sealed, "we_1")


def test_master_keys_must_be_256_bits() -> None:
    with pytest.raises(ValueError):
        Keyring(b"short")
    with pytest.raises(ValueError):
        Keyring(A, (b"short",))


def test_after_a_rotation_old_values_open_by_their_key_id_and_reseal_under_the_new_key() -> None:
    old = box(A).seal(SECRET, "we_1")
    rotated = box(B, A)
    assert rotated.open(old, "we_1") == SECRET
    resealed = rotated.reseal(old, "we_1")
    assert resealed is not None and resealed.key_id == key_id_of(B)
    assert box(B).open(resealed, "we_1") == SECRET
    assert rotated.reseal(resealed, "we_1") is None  # already current: nothing to do


def test_values_sealed_before_key_ids_open_under_any_configured_key() -> None:
    legacy = Sealed(None, box(A).seal(SECRET, "we_1").ciphertext)
    assert box(B, C, A).open(legacy, "we_1") == SECRET
    with pytest.raises(SecretUnreadable):
        box(B, C).open(legacy, "we_1")


def test_blobs_name_their_key_and_are_bound_to_their_context() -> None:
    blob = b"\x0a\x20" + SECRET.encode() + b"\x00\xff"
    context = "idempotent-answer:acct_1:dashboard:k1"
    sealed = SecretBox(Keyring(A), "idempotent-answer").seal_blob(blob, context)
    assert SECRET.encode() not in sealed
    assert blob_sealed(sealed).key_id == key_id_of(A)
    rotated = SecretBox(Keyring(B, (A,)), "idempotent-answer")
    assert rotated.open_blob(sealed, context) == blob
    with pytest.raises(SecretUnreadable):
        rotated.open_blob(sealed, "idempotent-answer:acct_2:dashboard:k1")
    resealed = rotated.reseal_blob(sealed, context)
    assert resealed is not None and blob_sealed(resealed).key_id == key_id_of(B)
    assert SecretBox(Keyring(B), "idempotent-answer").open_blob(resealed, context) == blob
    assert rotated.reseal_blob(resealed, context) is None
    # A version-1 blob (stored before key ids) still opens.
    legacy = SecretBox(Keyring(A), "idempotent-answer").seal_bytes(blob, context).ciphertext
    assert rotated.open_blob(legacy, context) == blob
