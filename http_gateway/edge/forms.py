"""The one reading of a posted HTML form, for every page that takes one (checkout, portal, dashboard).

Sanic parses `request.form` lazily and, for a body no browser sends — multipart without a boundary, a
urlencoded body that is not UTF-8 — logs a traceback at error level and answers an empty form. Read
through here, such a body is an empty form without that line, so a client cannot flood the log with
tracebacks; each page then answers an empty form as it would a browser's (the details asked again, or the
post refused for want of its anti-forgery token).
"""

from __future__ import annotations

from typing import Any

from sanic import Request


def posted_form(request: Request) -> Any:
    """`request.form` (a multi-dict), or `{}` for a body Sanic would log a traceback for."""
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith("multipart/form-data") and "boundary=" not in content_type:
        return {}
    if content_type.startswith("application/x-www-form-urlencoded"):
        try:
            (request.body or b"").decode("utf-8")
        except UnicodeDecodeError:
            return {}
    return request.form or {}
