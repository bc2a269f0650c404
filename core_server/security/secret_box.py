"""SecretBox: AES-256-GCM sealing of secrets kept at rest (webhook signing secrets, stored answers that
hold an API secret key)."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE_BYTES = 12
VERSION = b"\x01"


class SecretUnreadable(Exception):
    """The sealed value was altered, belongs to another row, or was sealed under another key."""


class SecretBox:
    """Seals with a fresh random nonce per value; `context` (the owning row id) is authenticated data,
    so a sealed secret copied onto another row does not open there."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("AES-256-GCM needs a 32-byte key")
        self._aead = AESGCM(key)

    def seal(self, plaintext: str, context: str) -> bytes:
        return self.seal_bytes(plaintext.encode("utf-8"), context)

    def open(self, sealed: bytes, context: str) -> str:
        return self.open_bytes(sealed, context).decode("utf-8")

    def seal_bytes(self, plaintext: bytes, context: str) -> bytes:
        """For blobs that embed a secret, e.g. the stored idempotent answer of an API key creation."""
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + self._aead.encrypt(nonce, plaintext, context.encode("utf-8"))

    def open_bytes(self, sealed: bytes, context: str) -> bytes:
        if len(sealed) < 1 + NONCE_BYTES + 16 or sealed[:1] != VERSION:
            raise SecretUnreadable("unknown sealed format")
        nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, body, context.encode("utf-8"))
        except InvalidTag:
            raise SecretUnreadable("authentication failed") from None
