"""What every dashboard form carries: the session's anti-forgery token and its own idempotency key.

Each rendered form gets a fresh `idempotency_key` (hidden field); the core receives it as the
Idempotency-Key of the operation, so a double submit of one rendered form acts once. The fingerprint
is the API's (canonical path + the form's fields), so a key reused for another request is refused.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any
from urllib.parse import urlencode

from connect.v1 import common_pb2
from sanic import Request

from http_gateway.dashboard.sessions import DashboardSession
from http_gateway.edge.forms import posted_form
from http_gateway.pipeline.idempotency import MAX_KEY_LENGTH, fingerprint

CSRF_FIELD = "csrf_token"
KEY_FIELD = "idempotency_key"
_PLUMBING = (CSRF_FIELD, KEY_FIELD)


class ForgedRequest(Exception):
    """A form post without this session's anti-forgery token (or from another origin)."""


def new_key() -> str:
    return secrets.token_urlsafe(18)


def read_form(request: Request) -> dict[str, str]:
    """The posted fields as single strings (first value); a body no browser sends reads as empty."""
    form: Any = posted_form(request)
    return {name: str(form.get(name) or "") for name in form}


def check_origin(request: Request) -> None:
    """A browser's cross-site post names another origin; "null" is what a no-referrer page sends."""
    origin = request.headers.get("origin")
    if origin in (None, "null"):
        return
    own = f"{request.scheme}://{request.host}"
    if origin != own:
        raise ForgedRequest(origin)


def check_csrf(request: Request, form: dict[str, str], session: DashboardSession) -> None:
    check_origin(request)
    sent = form.get(CSRF_FIELD, "")
    if not sent or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
        raise ForgedRequest("csrf")


def idempotency(form: dict[str, str], operation_path: str) -> common_pb2.Idempotency:
    """The form's key as the core's Idempotency, fingerprinted like the API request it stands for."""
    key = form.get(KEY_FIELD, "").strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        return common_pb2.Idempotency()
    fields = sorted((k, v) for k, v in form.items() if k not in _PLUMBING)
    body = urlencode(fields).encode()
    return common_pb2.Idempotency(key=key, fingerprint=fingerprint(operation_path, body))
