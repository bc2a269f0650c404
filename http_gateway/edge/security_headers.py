"""Headers every gateway response carries unless its route set its own (DESIGN §1, issue 6 "Security")."""

from __future__ import annotations

from sanic.response import BaseHTTPResponse

# nosniff: a JSON answer is never run as script or styled as CSS, whatever a browser guesses.
# no-store: answers hold secret keys (key creation), webhook secrets and payment data; no browser or
# proxy cache may keep them. Routes that are safe to cache (the checkout assets) set their own.
DEFAULTS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def apply_default_headers(response: BaseHTTPResponse) -> None:
    for name, value in DEFAULTS.items():
        if name not in response.headers:
            response.headers[name] = value
