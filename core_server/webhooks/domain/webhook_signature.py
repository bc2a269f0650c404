"""Webhook signatures: `Service-Signature: t=<unix>,v1=<hex>`; a standalone file merchants may copy.

Spec (Events, delivery rule 3): HMAC-SHA256 over `t + "." + raw body`, keyed with the endpoint
secret (the whole `whsec_…` string, DESIGN §5a), hex-encoded; receivers reject a `t` more than
300 seconds from their clock and compare in constant time. This module imports only the standard
library, so a merchant can drop it into their own code base unchanged:

    from webhook_signature import verify_signature
    if not verify_signature(request_body_bytes, request.headers["Service-Signature"], "whsec_..."):
        return 400

Verify the raw bytes as received, before any JSON parsing: re-serialized JSON will not match.
"""

from __future__ import annotations

import hashlib
import hmac
import time

__all__ = [
    "DEFAULT_TOLERANCE",
    "HEADER",
    "compute_signature",
    "generate_test_header",
    "signature_header",
    "verify_signature",
]

HEADER = "Service-Signature"
SCHEME = "v1"
DEFAULT_TOLERANCE = 300
"""Spec Limits: webhook timestamp tolerance, 5 minutes."""


def compute_signature(payload: bytes, secret: str, timestamp: int) -> str:
    """Hex HMAC-SHA256 of `f"{timestamp}.".encode() + payload` keyed with the secret's UTF-8 bytes."""
    signed = f"{timestamp}.".encode() + payload
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def signature_header(payload: bytes, secret: str, timestamp: int) -> str:
    """The header value the platform sends with each delivery."""
    return f"t={timestamp},{SCHEME}={compute_signature(payload, secret, timestamp)}"


def generate_test_header(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """For merchants' own tests: a valid header for `payload`, as if the platform had sent it now."""
    return signature_header(payload, secret, int(time.time()) if timestamp is None else timestamp)


def _parse(header: str) -> tuple[int | None, list[str]]:
    """(timestamp, v1 signatures); several v1 entries are allowed, as when a secret is rolled."""
    timestamp: int | None = None
    signatures: list[str] = []
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            if timestamp is not None or not value.isascii() or not value.isdigit() or len(value) > 12:
                return None, []
            timestamp = int(value)
        elif key == SCHEME:
            signatures.append(value)
    return timestamp, signatures


def verify_signature(
    payload: bytes,
    header: str,
    secret: str,
    tolerance: int = DEFAULT_TOLERANCE,
    now: int | None = None,
) -> bool:
    """True only when a `v1` signature matches and `t` is within `tolerance` seconds of `now`.

    Stale timestamps are refused in both directions (a replayed old delivery, or a clock far ahead).
    Every candidate is compared with `hmac.compare_digest`, so timing reveals nothing about the secret.
    """
    if not isinstance(payload, bytes | bytearray) or not header or not secret:
        return False
    timestamp, signatures = _parse(header)
    if timestamp is None or not signatures:
        return False
    current = int(time.time()) if now is None else now
    if abs(current - timestamp) > tolerance:
        return False
    expected = compute_signature(bytes(payload), secret, timestamp)
    matched = False
    for candidate in signatures:
        # No early exit: every candidate costs the same whether or not an earlier one matched.
        matched |= hmac.compare_digest(expected.encode("ascii"), candidate.encode("utf-8", "replace"))
    return matched
