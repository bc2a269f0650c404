"""SecretBox: AES-256-GCM sealing of secrets kept at rest (webhook signing secrets, stored answers that
hold an API secret key), under a keyring so the master key can be rotated (scripts/rotate_keys.py)."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core_server.kernel.domain.sealed import Sealed
from core_server.security.keyring import Keyring, derive_key

NONCE_BYTES = 12
TAG_BYTES = 16
VERSION = b"\x01"
# A blob that names its key: version 2, then the 8 ASCII characters of the key id, then as version 1.
ENVELOPE_VERSION = b"\x02"
KEY_ID_BYTES = 8


class SecretUnreadable(Exception):
    """The sealed value was altered, belongs to another row, or was sealed under a key not configured."""


class SecretBox:
    """Seals with a fresh random nonce per value under the current key of `keyring`, derived for one
    `purpose`; `context` (the owning row id) is authenticated data, so a sealed secret copied onto another
    row does not open there. Opening picks the key by the stored key id."""

    def __init__(self, keyring: Keyring, purpose: str) -> None:
        self.current_id = keyring.current_id
        self._aeads = {
            key_id: AESGCM(derive_key(master, purpose)) for key_id, master in keyring.masters().items()
        }

    def seal(self, plaintext: str, context: str) -> Sealed:
        return self.seal_bytes(plaintext.encode("utf-8"), context)

    def open(self, sealed: Sealed, context: str) -> str:
        return self.open_bytes(sealed, context).decode("utf-8")

    def seal_bytes(self, plaintext: bytes, context: str) -> Sealed:
        nonce = os.urandom(NONCE_BYTES)
        body = self._aeads[self.current_id].encrypt(nonce, plaintext, context.encode("utf-8"))
        return Sealed(self.current_id, VERSION + nonce + body)

    def open_bytes(self, sealed: Sealed, context: str) -> bytes:
        data = sealed.ciphertext
        if len(data) < 1 + NONCE_BYTES + TAG_BYTES or data[:1] != VERSION:
            raise SecretUnreadable("unknown sealed format")
        if sealed.key_id is None:
            # Sealed before key ids were stored: GCM's tag tells which accepted key it was.
            candidates = list(self._aeads.values())
        elif sealed.key_id in self._aeads:
            candidates = [self._aeads[sealed.key_id]]
        else:
            raise SecretUnreadable(f"sealed under key {sealed.key_id}, which is not configured")
        nonce, body = data[1 : 1 + NONCE_BYTES], data[1 + NONCE_BYTES :]
        for aead in candidates:
            try:
                return aead.decrypt(nonce, body, context.encode("utf-8"))
            except InvalidTag:
                continue
        raise SecretUnreadable("authentication failed")

    def reseal(self, sealed: Sealed, context: str) -> Sealed | None:
        """The value sealed again under the current key; None when it already is."""
        if sealed.key_id == self.current_id:
            return None
        return self.seal_bytes(self.open_bytes(sealed, context), context)

    def seal_blob(self, plaintext: bytes, context: str) -> bytes:
        """For blobs stored where no key-id column can sit beside them (a stored idempotent answer in
        the kernel's generic idempotency table): the key id travels inside, as a versioned prefix."""
        sealed = self.seal_bytes(plaintext, context)
        return ENVELOPE_VERSION + (sealed.key_id or "").encode("ascii") + sealed.ciphertext

    def open_blob(self, blob: bytes, context: str) -> bytes:
        return self.open_bytes(blob_sealed(blob), context)

    def reseal_blob(self, blob: bytes, context: str) -> bytes | None:
        """The blob sealed again under the current key; None when it already is."""
        if blob_sealed(blob).key_id == self.current_id:
            return None
        return self.seal_blob(self.open_blob(blob, context), context)


def blob_sealed(blob: bytes) -> Sealed:
    """Reads a blob's key id: version 2 names it; a version-1 blob predates key ids (None)."""
    if blob[:1] == ENVELOPE_VERSION:
        key_id = blob[1 : 1 + KEY_ID_BYTES].decode("ascii", errors="replace")
        return Sealed(key_id, blob[1 + KEY_ID_BYTES :])
    return Sealed(None, blob)
