"""Public identifiers: prefixes, lengths, alphabets, format checks and collision retries."""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterator

ALPHANUMERIC = string.ascii_letters + string.digits

MAX_ID_ATTEMPTS = 10
"""Spec: generation retries up to 10 times on collision."""


class IdCollision(Exception):
    """A freshly generated id already exists; the caller tries the next candidate."""


def new_id(prefix: str, length: int, alphabet: str = ALPHANUMERIC) -> str:
    """A random id from a CSPRNG: guessing another merchant's ids must be hopeless.

    Uniform over the alphabet: bytes from one os.urandom call, those at or above the largest multiple
    of the alphabet's size dropped (no modulo bias). A tenth of the cost of a secrets.choice per
    character, which showed in the profile of a create (two ids per charge).
    """
    size = len(alphabet)
    cutoff = 256 - 256 % size
    chars: list[str] = []
    while len(chars) < length:
        chars.extend(alphabet[b % size] for b in secrets.token_bytes(length) if b < cutoff)
    return prefix + "".join(chars[:length])


def id_candidates(prefix: str, length: int, alphabet: str = ALPHANUMERIC) -> Iterator[str]:
    """Up to MAX_ID_ATTEMPTS fresh ids; storage tries them in turn until one inserts."""
    for _ in range(MAX_ID_ATTEMPTS):
        yield new_id(prefix, length, alphabet)


def new_event_id() -> str:
    return new_id("evt_", 24)


class IdSpaceExhausted(RuntimeError):
    """Ten collisions in a row: the id space or the random source is broken."""
