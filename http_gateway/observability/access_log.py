"""The gateway's access line: one JSON line per request, built on the event loop and queued as text.

The line is the one `JsonFormatter` (connect/log_format.py) writes for a record of the
`http_gateway.access` logger — `ts`, `level`, `process`, `logger`, `message`, `request_id`, then
`method`, `path`, `status`, `duration_ms` — so a log reader sees no difference. Through `logging` it
cost a LogRecord on the loop (~7 µs) and the formatter on the writer thread (~15 µs), for every request;
measured under create load, the line took 0.05–0.09 ms of the gateway's CPU per request (BENCHMARKS.md,
"Speed, round 8"). Built here from the values it holds, it costs a few microseconds and the writer
thread only joins it to the others.

When the root handler is not the gateway's queued JSON writer (a test capturing records, an application
embedding the gateway with its own logging), the line goes through `logging` as a record, so it is never
lost and never in another shape.
"""

from __future__ import annotations

import functools
import logging
import time
from json.encoder import encode_basestring_ascii  # the C encoder json.dumps uses for a str

from connect.log_format import JsonFormatter, line_timestamp
from connect.log_writer import QueuedLogHandler

from http_gateway.observability.logging_setup import RequestIdFilter

logger = logging.getLogger("http_gateway.access")


@functools.lru_cache(maxsize=4)
def _second_text(second: int) -> str:
    """`2026-11-28T18:19:28`: the part of `line_timestamp` that one second of lines shares."""
    return line_timestamp(second)[:19]


def _timestamp(now: float) -> str:
    """`now` as `line_timestamp` writes it (milliseconds truncated), without a datetime per line."""
    second = int(now)
    return f"{_second_text(second)}.{int((now - second) * 1000):03d}+00:00"


def access_line(
    process: str,
    request_id: str | None,
    method: str,
    path: str,
    status: int,
    duration_ms: float | None,
    now: float,
) -> str:
    """The JSON text of one access line (no newline); `process` as the writer's formatter names it."""
    rid = "null" if request_id is None else encode_basestring_ascii(request_id)
    duration = "null" if duration_ms is None else repr(float(duration_ms))
    return (
        f'{{"ts": "{_timestamp(now)}", "level": "info", "process": {encode_basestring_ascii(process)}, '
        f'"logger": "{logger.name}", "message": "request", "request_id": {rid}, '
        f'"method": {encode_basestring_ascii(method)}, "path": {encode_basestring_ascii(path)}, '
        f'"status": {int(status)}, "duration_ms": {duration}}}'
    )


def _queued_json_writer() -> tuple[QueuedLogHandler, JsonFormatter] | None:
    """The handler the line can be queued on as text, and its formatter: the root's only handler, the
    gateway's JSON writer (configure_logging), with nothing on the way that could filter or reshape a
    record."""
    if logger.filters or logger.disabled:
        return None
    node: logging.Logger | None = logger
    while node is not None and node is not logging.root:  # "http_gateway", when it exists, on the way
        if node.handlers or not node.propagate:
            return None
        node = node.parent
    handlers = logging.root.handlers
    if len(handlers) != 1:
        return None
    handler, formatter = handlers[0], handlers[0].formatter
    if not isinstance(handler, QueuedLogHandler) or not isinstance(formatter, JsonFormatter):
        return None
    if type(formatter) is not JsonFormatter:  # a subclass may shape its lines otherwise
        return None
    if not all(type(f) is RequestIdFilter for f in handler.filters):
        return None
    return handler, formatter


def log_access(
    request_id: str | None, method: str, path: str, status: int, duration_ms: float | None
) -> None:
    """One access line for an answered request, at INFO (LOG_LEVEL=WARNING and above leave it out)."""
    if not logger.isEnabledFor(logging.INFO):
        return
    writer = _queued_json_writer()
    if writer is not None and writer[0].level <= logging.INFO:
        handler, formatter = writer
        now = time.time()
        handler.emit_line(access_line(formatter.process, request_id, method, path, status, duration_ms, now))
        return
    extra = {"method": method, "path": path, "status": status, "duration_ms": duration_ms}
    logger.info("request", extra=extra)
