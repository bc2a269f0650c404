"""Idempotency-Key syntax and the request fingerprint the core compares on reuse."""

from __future__ import annotations

import hashlib

from connect.v1 import common_pb2
from sanic import Request

from http_gateway.edge.errors import ApiError

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 100  # spec Limits
# Longest first: the same operation under any address style must give the same fingerprint.
_ADDRESS_PREFIXES = ("/api/v1/connect", "/api/v1", "/connect/v1", "/v1")


def canonical_path(path: str) -> str:
    """`/api/v1/connect/charges/ch_x/capture` -> `/charges/ch_x/capture` (aliases are one operation)."""
    for prefix in _ADDRESS_PREFIXES:
        if path.startswith(prefix + "/"):
            path = path[len(prefix) :]
            break
    return path.rstrip("/") or "/"


def fingerprint(path: str, body: bytes, query: str = "") -> str:
    """sha256 of canonical path (+ `?` and the query's parameters in sorted order, when there is a query)
    + newline + raw body: a reused key with another request is refused — `cancel?at_period_end=true`
    and `cancel?at_period_end=false` are two requests. Without a query the fingerprint is what it was
    before queries counted, so keys stored then still match their retries."""
    target = canonical_path(path)
    if query:
        target += "?" + "&".join(sorted(part for part in query.split("&") if part))
    return hashlib.sha256(target.encode() + b"\n" + body).hexdigest()


def idempotency_key(request: Request) -> str | None:
    """The header value, or None when absent or blank; over 100 characters is a 400 (DESIGN §5a)."""
    value = request.headers.get(HEADER)
    if value is None or not value.strip():
        return None
    if len(value) > MAX_KEY_LENGTH:
        raise ApiError.invalid(HEADER, f"{HEADER} must be at most {MAX_KEY_LENGTH} characters.")
    # Bytes that are not UTF-8 arrive as lone surrogates, which protobuf cannot carry to the core;
    # isprintable() is False for them and for control characters alike.
    if not value.isprintable():
        raise ApiError.invalid(HEADER, f"{HEADER} must be printable text.")
    return value


def idempotency_for(request: Request) -> common_pb2.Idempotency:
    """The Idempotency message for the request (empty key when the client sent none)."""
    key = idempotency_key(request)
    if key is None:
        return common_pb2.Idempotency()
    return common_pb2.Idempotency(
        key=key, fingerprint=fingerprint(request.path, request.body or b"", request.query_string)
    )
