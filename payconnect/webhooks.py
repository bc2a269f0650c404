"""Webhook signatures: check `Service-Signature: t=<unix>,v1=<hex>` before trusting a payload.

The platform signs `f"{t}.".encode() + raw body` with HMAC-SHA256 keyed by the whole `whsec_…` secret
(the endpoint's, or the one `payconnect listen --print-secret` shows). Verify the raw bytes exactly as
received, before any JSON parsing. Timestamps more than `tolerance` seconds away (either way) are
refused, so a captured delivery cannot be replayed later; every candidate signature is compared in
constant time, so timing reveals nothing about the secret.

    event = payconnect.webhooks.construct_event(request.body, request.headers["Service-Signature"], secret)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

from payconnect.errors import SignatureVerificationError
from payconnect.objects import to_object

__all__ = [
    "DEFAULT_TOLERANCE",
    "HEADER",
    "compute_signature",
    "construct_event",
    "generate_test_header",
    "verify",
]

HEADER = "Service-Signature"
SCHEME = "v1"
DEFAULT_TOLERANCE = 300
"""Spec Limits: webhook timestamp tolerance, 5 minutes."""


def compute_signature(payload: bytes, secret: str, timestamp: int) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()


def generate_test_header(payload: bytes | str, secret: str, timestamp: int | None = None) -> str:
    """A valid header for `payload`, as if the platform had sent it now: for a handler's own tests."""
    body = payload.encode() if isinstance(payload, str) else payload
    moment = int(time.time()) if timestamp is None else timestamp
    return f"t={moment},{SCHEME}={compute_signature(body, secret, moment)}"


def _parse(header: str) -> tuple[int | None, list[str]]:
    timestamp: int | None = None
    signatures: list[str] = []
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            if timestamp is not None or not (value.isascii() and value.isdigit()) or len(value) > 12:
                return None, []
            timestamp = int(value)
        elif key == SCHEME:
            signatures.append(value)
    return timestamp, signatures


def verify(
    payload: bytes | str,
    header: str,
    secret: str,
    tolerance: int = DEFAULT_TOLERANCE,
    now: int | None = None,
) -> bool:
    """True only when a `v1` signature matches and `t` lies within `tolerance` seconds of now."""
    if not header or not secret:
        return False
    body = payload.encode() if isinstance(payload, str) else bytes(payload)
    timestamp, signatures = _parse(header)
    if timestamp is None or not signatures:
        return False
    current = int(time.time()) if now is None else now
    if abs(current - timestamp) > tolerance:
        return False
    expected = compute_signature(body, secret, timestamp).encode()
    matched = False
    for candidate in signatures:
        # No early exit: every candidate costs the same whether or not an earlier one matched.
        matched |= hmac.compare_digest(expected, candidate.encode("utf-8", "replace"))
    return matched


def construct_event(
    payload: bytes | str, header: str, secret: str, tolerance: int = DEFAULT_TOLERANCE
) -> Any:
    """The verified Event object, or SignatureVerificationError."""
    if not verify(payload, header, secret, tolerance):
        raise SignatureVerificationError("The Service-Signature header does not verify for this payload.")
    return to_object(json.loads(payload))
