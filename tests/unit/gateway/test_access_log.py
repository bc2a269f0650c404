"""The access line built on the loop is, byte for byte, the line `JsonFormatter` writes for the record
it replaces, and it reaches the stream in order with the records around it."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from connect.log_format import JsonFormatter
from connect.log_writer import QueuedLogHandler

from http_gateway.observability import access_log
from http_gateway.observability.access_log import access_line, log_access
from http_gateway.observability.logging_setup import RequestIdFilter, configure_logging, request_id_var


def _formatted_record(
    request_id: str | None, method: str, path: str, status: int, ms: float | None, at: float
):
    record = logging.LogRecord("http_gateway.access", logging.INFO, __file__, 1, "request", None, None)
    record.created = at
    record.method, record.path, record.status, record.duration_ms = method, path, status, ms
    token = request_id_var.set(request_id)
    try:
        RequestIdFilter().filter(record)
        return JsonFormatter("gateway").format(record)
    finally:
        request_id_var.reset(token)


@pytest.mark.parametrize(
    ("request_id", "method", "path", "status", "ms", "at"),
    [
        ("req_abc", "POST", "/api/v1/connect/charges", 201, 12.3, 1_764_350_000.123456),
        ("req_x", "GET", '/odd/"quoted"\\path/ünï\u2028', 404, 0.0, 1_764_350_001.0),
        ("req_y", "DELETE", "/v1/webhook_endpoints/we_1", 503, None, 1_764_350_002.999),
        (None, "GET", "/healthz", 200, 1500.5, 1_764_350_003.5),
    ],
)
def test_the_line_is_the_formatters_line_for_the_same_record(request_id, method, path, status, ms, at):
    assert access_line("gateway", request_id, method, path, status, ms, at) == _formatted_record(
        request_id, method, path, status, ms, at
    )


@pytest.fixture
def gateway_logging() -> Iterator[tuple[QueuedLogHandler, io.StringIO]]:
    """configure_logging's JSON writer, writing to a StringIO, as the root's only handler (pytest's
    capture handler left out); the root's handlers and level restored afterwards."""
    root = logging.getLogger()
    kept = (root.handlers[:], root.level, logging._srcfile, logging.logThreads, logging.logProcesses)
    configure_logging("INFO")
    handler = root.handlers[0]
    assert isinstance(handler, QueuedLogHandler)
    stream = handler.stream = io.StringIO()
    try:
        yield handler, stream
    finally:
        handler.close()
        root.handlers[:], level, logging._srcfile, logging.logThreads, logging.logProcesses = kept
        root.setLevel(level)
        logging.logMultiprocessing = True


def test_the_line_is_queued_as_text_in_order_with_the_records_around_it(
    gateway_logging: tuple[QueuedLogHandler, io.StringIO],
):
    handler, stream = gateway_logging
    logging.root.handlers[:] = [handler]  # as in the gateway: without pytest's capture handler
    assert access_log._queued_json_writer() == (handler, handler.formatter)
    logging.getLogger("http_gateway.other").info("before")
    log_access("req_line", "POST", "/v1/charges", 201, 1.5)
    logging.getLogger("http_gateway.other").info("after")
    handler.flush()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["message"] for line in lines] == ["before", "request", "after"]
    access = lines[1]
    fields = {"ts", "level", "process", "logger", "message", "request_id", "method", "path", "status"}
    fields.add("duration_ms")
    assert set(access) == fields
    assert (access["request_id"], access["status"], access["path"]) == ("req_line", 201, "/v1/charges")
    assert (access["logger"], access["level"], access["duration_ms"]) == ("http_gateway.access", "info", 1.5)
    assert access["process"] == "gateway"


def test_above_info_no_line_is_written(gateway_logging):
    handler, stream = gateway_logging
    logging.root.handlers[:] = [handler]
    logging.getLogger().setLevel(logging.WARNING)
    log_access("req_quiet", "GET", "/v1/charges", 200, 1.0)
    handler.flush()
    assert "req_quiet" not in stream.getvalue()


def test_under_another_handler_the_line_is_a_record_with_the_same_fields(caplog):
    """A test's capture or an embedding application's logging still sees every access line."""
    with caplog.at_level(logging.INFO, logger="http_gateway.access"):
        log_access("req_rec", "GET", "/v1/charges/ch_1", 200, 2.5)
    (record,) = [r for r in caplog.records if r.name == "http_gateway.access"]
    assert (record.getMessage(), record.method, record.path, record.status, record.duration_ms) == (
        "request",
        "GET",
        "/v1/charges/ch_1",
        200,
        2.5,
    )


def test_a_writer_with_another_formatter_gets_a_record(monkeypatch):
    stream = io.StringIO()
    handler = QueuedLogHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s %(status)s"))
    monkeypatch.setattr(logging.root, "handlers", [handler])
    monkeypatch.setattr(logging.root, "level", logging.INFO)
    try:
        assert access_log._queued_json_writer() is None
        log_access("req_plain", "GET", "/v1/charges", 200, 1.0)
        handler.flush()
    finally:
        handler.close()
    assert stream.getvalue() == "request 200\n"


def test_text_lines_share_the_queues_bound_and_drop_count():
    stream = io.StringIO()
    handler = QueuedLogHandler(stream, capacity=2, interval=60)
    try:
        for n in range(3):
            handler.emit_line(f'{{"n": {n}}}')
        assert handler.dropped == 1
        handler.flush()
    finally:
        handler.close()
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ['{"n": 0}', '{"n": 1}']
    assert "1 log lines dropped" in lines[2]


def test_a_parent_logger_on_the_way_without_handlers_keeps_the_line_text(gateway_logging):
    """Sanic and the gateway make an `http_gateway` logger: the access logger's parent, not the root."""
    handler, _ = gateway_logging
    logging.root.handlers[:] = [handler]
    parent = logging.getLogger("http_gateway")
    assert logging.getLogger("http_gateway.access").parent is parent
    assert access_log._queued_json_writer() == (handler, handler.formatter)
    extra_handler = logging.NullHandler()
    parent.addHandler(extra_handler)
    try:
        assert access_log._queued_json_writer() is None  # a handler on the way sees records
    finally:
        parent.removeHandler(extra_handler)
