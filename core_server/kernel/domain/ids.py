"""Public identifiers: prefixes, lengths, alphabets, format checks and collision retries."""

from __future__ import annotations

import functools
import secrets
import string
from collections.abc import Iterator

ALPHANUMERIC = string.ascii_letters + string.digits

MAX_ID_ATTEMPTS = 10
"""Spec: generation retries up to 10 times on collision."""


class IdCollision(Exception):
    """A freshly generated id already exists; the caller tries the next candidate."""


@functools.cache
def _byte_table(alphabet: str) -> tuple[bytes, bytes]:
    """`bytes.translate` arguments: byte b below the cutoff becomes alphabet[b % size], the rest are
    deleted."""
    size = len(alphabet)
    cutoff = 256 - 256 % size
    table = bytes(ord(alphabet[b % size]) if b < cutoff else 0 for b in range(256))
    return table, bytes(range(cutoff, 256))


def new_id(prefix: str, length: int, alphabet: str = ALPHANUMERIC) -> str:
    """A random id from a CSPRNG: guessing another merchant's ids must be hopeless.

    Uniform over the alphabet: bytes from os.urandom, those at or above the largest multiple of the
    alphabet's size dropped (no modulo bias), the rest mapped by one `bytes.translate` (a Python loop
    over the bytes was 90 generator steps per create, three ids).
    """
    if not alphabet.isascii() or len(alphabet) > 256:
        raise ValueError("an id alphabet is at most 256 ASCII characters")
    table, dropped = _byte_table(alphabet)
    chars = b""
    while len(chars) < length:
        chars += secrets.token_bytes(length).translate(table, dropped)
    return prefix + chars[:length].decode("ascii")


def id_candidates(prefix: str, length: int, alphabet: str = ALPHANUMERIC) -> Iterator[str]:
    """Up to MAX_ID_ATTEMPTS fresh ids; storage tries them in turn until one inserts."""
    for _ in range(MAX_ID_ATTEMPTS):
        yield new_id(prefix, length, alphabet)


def new_event_id() -> str:
    return new_id("evt_", 24)


class IdSpaceExhausted(RuntimeError):
    """Ten collisions in a row: the id space or the random source is broken."""
