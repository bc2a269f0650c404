"""QueuedLogHandler: records leave the caller at once and reach the stream from the writer thread."""

from __future__ import annotations

import io
import json
import logging
import time

from connect.log_format import JsonFormatter
from connect.log_writer import QueuedLogHandler

from http_gateway.observability.logging_setup import RequestIdFilter, request_id_var


def _handler(stream: io.StringIO, **options: float) -> QueuedLogHandler:
    handler = QueuedLogHandler(stream, **options)  # type: ignore[arg-type]
    handler.setFormatter(JsonFormatter("gateway"))
    handler.addFilter(RequestIdFilter())
    return handler


def _record(message: str) -> logging.LogRecord:
    return logging.LogRecord("http_gateway.access", logging.INFO, __file__, 1, message, None, None)


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_lines_are_written_by_the_thread_with_the_request_id_of_the_caller():
    stream = io.StringIO()
    handler = _handler(stream, interval=0.01)
    token = request_id_var.set("req_caller")
    try:
        handler.handle(_record("request"))
    finally:
        request_id_var.reset(token)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not stream.getvalue():
        time.sleep(0.01)
    handler.close()
    assert [(line["message"], line["request_id"]) for line in _lines(stream)] == [("request", "req_caller")]


def test_a_full_queue_drops_and_counts_and_the_next_write_says_so():
    stream = io.StringIO()
    handler = _handler(stream, capacity=3, interval=3600)  # the thread never drains during the test
    for n in range(5):
        handler.handle(_record(f"line {n}"))
    assert handler.dropped == 2 and stream.getvalue() == ""  # nothing written on the caller's side
    handler.flush()
    lines = _lines(stream)
    assert [line["message"] for line in lines[:3]] == ["line 0", "line 1", "line 2"]
    assert lines[3]["level"] == "warning" and str(lines[3]["message"]).startswith("2 log lines dropped")
    handler.handle(_record("after"))
    handler.close()  # close writes what is pending, and does not report the same drops twice
    assert [line["message"] for line in _lines(stream)[4:]] == ["after"]
