"""JSON-lines logging with the current request id taken from a ContextVar, written off the event loop."""

from __future__ import annotations

import json
import logging
import os
import secrets
import string
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from connect.log_writer import QueuedLogHandler, replace_root_handler

_ALPHABET = string.ascii_letters + string.digits

# Set by the request middleware; every log line emitted while handling that request carries it.
request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)


def new_request_id() -> str:
    """`req_` + 24 alphanumerics: unguessable, so ids in logs cannot be used to probe other requests."""
    # One os.urandom call, bytes ≥ 248 (= 4 × 62) dropped so every character stays uniform: a tenth of
    # the cost of 24 secrets.choice calls, on every request.
    chars: list[str] = []
    while len(chars) < 24:
        chars.extend(_ALPHABET[b % 62] for b in secrets.token_bytes(24) if b < 248)
    return "req_" + "".join(chars[:24])


# Attributes every LogRecord has; anything else was passed with `extra=` and is copied into the line.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class RequestIdFilter(logging.Filter):
    """Copies the request id onto the record where it is logged: the writer thread has no request."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line, so log shippers need no parsing rules."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            # Captured by RequestIdFilter when queued; read here when a record is formatted in place.
            "request_id": getattr(record, "request_id", None) or request_id_var.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure_logging(level: int | str | None = None) -> None:
    """Route every logger (Sanic's included) through one JSON handler on stderr, written by a thread
    (connect/log_writer.py); the level defaults to LOG_LEVEL (INFO when unset), like the core's."""
    handler = QueuedLogHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    replace_root_handler(handler, level if level is not None else os.environ.get("LOG_LEVEL", "INFO").upper())
    for name in ("sanic.root", "sanic.error", "sanic.access", "sanic.server", "sanic.websockets"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
