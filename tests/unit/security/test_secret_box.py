"""SecretBox: AES-256-GCM; a sealed secret opens only with its key and on its own row."""

from __future__ import annotations

import os

import pytest

from core_server.security.secret_box import SecretBox, SecretUnreadable

SECRET = "whsec_abcdefghijklmnopqrstuvwxyz012345"


def test_seal_and_open_round_trip_without_the_plaintext_in_the_sealed_bytes() -> None:
    box = SecretBox(os.urandom(32))
    sealed = box.seal(SECRET, "we_1")
    assert SECRET.encode() not in sealed
    assert box.open(sealed, "we_1") == SECRET
    assert box.seal(SECRET, "we_1") != sealed  # a fresh nonce each time


def test_another_row_another_key_or_a_flipped_bit_cannot_open_it() -> None:
    key = os.urandom(32)
    sealed = SecretBox(key).seal(SECRET, "we_1")
    with pytest.raises(SecretUnreadable):
        SecretBox(key).open(sealed, "we_2")
    with pytest.raises(SecretUnreadable):
        SecretBox(os.urandom(32)).open(sealed, "we_1")
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(SecretUnreadable):
        SecretBox(key).open(tampered, "we_1")
    with pytest.raises(SecretUnreadable):
        SecretBox(key).open(b"\x01short", "we_1")


def test_the_key_must_be_256_bits() -> None:
    with pytest.raises(ValueError):
        SecretBox(b"short")


def test_bytes_are_sealed_the_same_way_and_bound_to_their_context() -> None:
    box = SecretBox(os.urandom(32))
    blob = b"\x0a\x20" + SECRET.encode() + b"\x00\xff"
    sealed = box.seal_bytes(blob, "idempotent-answer:acct_1:dashboard:k1")
    assert SECRET.encode() not in sealed
    assert box.open_bytes(sealed, "idempotent-answer:acct_1:dashboard:k1") == blob
    with pytest.raises(SecretUnreadable):
        box.open_bytes(sealed, "idempotent-answer:acct_2:dashboard:k1")
