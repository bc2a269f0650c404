"""The master keys: DATA_ENCRYPTION_KEY seals, DATA_ENCRYPTION_KEYS (older keys) still open, by key id."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass


def key_id_of(master: bytes) -> str:
    """A key's id: the first 8 hex characters of its SHA-256. Derived, never configured, so an operator
    cannot give two keys one id or one key two ids; 32 bits of a hash reveal nothing of a 256-bit key."""
    return hashlib.sha256(master).hexdigest()[:8]


def derive_key(master: bytes, label: str) -> bytes:
    """Separate keys per purpose from a master key, so one use never weakens another."""
    return hmac.new(master, label.encode(), hashlib.sha256).digest()


@dataclass(frozen=True, slots=True)
class Keyring:
    """`current` seals; `older` only opens what was sealed before a rotation finished."""

    current: bytes
    older: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if any(len(key) != 32 for key in (self.current, *self.older)):
            raise ValueError("AES-256-GCM master keys are 32 bytes")

    @property
    def current_id(self) -> str:
        return key_id_of(self.current)

    def masters(self) -> dict[str, bytes]:
        """Every accepted master key by id, the current one first."""
        found = {key_id_of(self.current): self.current}
        for key in self.older:
            found.setdefault(key_id_of(key), key)
        return found
