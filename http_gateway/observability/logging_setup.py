"""JSON-lines logging with the current request id taken from a ContextVar, written off the event loop."""

from __future__ import annotations

import logging
import os
import secrets
import string
import sys
from contextvars import ContextVar

from connect.log_format import JsonFormatter
from connect.log_writer import QueuedLogHandler, replace_root_handler

_ALPHABET = string.ascii_letters + string.digits

# Set by the request middleware; every log line emitted while handling that request carries it.
request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)


# Random byte b < 248 (= 4 × 62) becomes _ALPHABET[b % 62]; bytes ≥ 248 are dropped, so every character
# stays uniform. bytes.translate does both in C.
_TO_ALPHABET = bytes(ord(_ALPHABET[b % 62]) if b < 248 else 0 for b in range(256))
_DROPPED = bytes(range(248, 256))


def new_request_id() -> str:
    """`req_` + 24 alphanumerics: unguessable, so ids in logs cannot be used to probe other requests."""
    # One os.urandom call of 30 bytes leaves 24 or more almost always (a shortfall draws again): a
    # fraction of the cost of 24 secrets.choice calls, or of a Python loop over the bytes, per request.
    chars = b""
    while len(chars) < 24:
        chars += secrets.token_bytes(30).translate(_TO_ALPHABET, _DROPPED)
    return "req_" + chars[:24].decode("ascii")


class RequestIdFilter(logging.Filter):
    """Copies the request id onto the record where it is logged: the writer thread has no request."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def configure_logging(level: int | str | None = None) -> None:
    """Route every logger (Sanic's included) through one JSON handler on stderr, in the shape every
    process writes (connect/log_format.py), written by a thread (connect/log_writer.py); the level
    defaults to LOG_LEVEL (INFO when unset), like the core's."""
    # No line carries the caller's source position, thread or process: the logging HOWTO's
    # "Optimization" switches skip collecting them for every record (a third of the access line's cost
    # on the event loop).
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = QueuedLogHandler(sys.stderr)
    handler.setFormatter(JsonFormatter("gateway"))
    handler.addFilter(RequestIdFilter())
    replace_root_handler(handler, level if level is not None else os.environ.get("LOG_LEVEL", "INFO").upper())
    for name in ("sanic.root", "sanic.error", "sanic.access", "sanic.server", "sanic.websockets"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
