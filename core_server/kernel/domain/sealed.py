"""Sealed: a secret encrypted at rest together with the id of the master key that sealed it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sealed:
    """Stored as two columns (ciphertext, key id), so a rotation finds what is not yet under the current
    key with a plain query; `key_id` None marks a value sealed before key ids existed (migration 0009)."""

    key_id: str | None
    ciphertext: bytes
