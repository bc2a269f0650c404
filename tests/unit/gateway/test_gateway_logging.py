"""Log lines are single JSON objects carrying the request id of the request being handled."""

from __future__ import annotations

import json
import logging
import re

from connect.log_format import JsonFormatter

from http_gateway.observability.logging_setup import RequestIdFilter, new_request_id, request_id_var


def test_request_ids_are_req_and_24_alphanumerics():
    ids = {new_request_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(re.fullmatch(r"req_[A-Za-z0-9]{24}", i) for i in ids)


def test_a_log_line_is_json_with_request_id_and_extras():
    token = request_id_var.set("req_abc")
    try:
        record = logging.LogRecord("http_gateway", logging.INFO, __file__, 1, "hello %s", ("world",), None)
        record.status = 201
        RequestIdFilter().filter(record)  # as the handler does where the record is logged
        line = json.loads(JsonFormatter("gateway").format(record))
    finally:
        request_id_var.reset(token)
    assert line["message"] == "hello world"
    assert line["request_id"] == "req_abc"
    assert line["status"] == 201
    assert line["level"] == "info"
    assert line["process"] == "gateway"


def test_request_id_characters_are_uniform_over_the_alphabet():
    """Bytes ≥ 248 are dropped, the rest taken modulo 62: every character equally likely."""
    counts: dict[str, int] = {}
    for _ in range(2_000):
        for char in new_request_id()[4:]:
            counts[char] = counts.get(char, 0) + 1
    assert len(counts) == 62
    expected = 2_000 * 24 / 62
    assert all(abs(n - expected) < 0.25 * expected for n in counts.values())


def test_the_access_line_is_the_same_json_without_source_thread_or_process(capsys):
    """configure_logging turns off collecting the caller's position, thread and process (no line shows
    them); the access line keeps every field it had."""
    from http_gateway.observability.logging_setup import configure_logging

    root = logging.getLogger()
    kept = (root.handlers[:], root.level, logging._srcfile, logging.logThreads, logging.logProcesses)
    configure_logging("INFO")
    handler = root.handlers[0]
    token = request_id_var.set("req_line")
    try:
        extra = {"method": "POST", "path": "/v1/charges", "status": 201, "duration_ms": 1.5}
        logging.getLogger("http_gateway.access").info("request", extra=extra)
        handler.flush()
    finally:
        request_id_var.reset(token)
        handler.close()
        root.handlers[:], level, logging._srcfile, logging.logThreads, logging.logProcesses = kept
        root.setLevel(level)
        logging.logMultiprocessing = True
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    fields = {"ts", "level", "process", "logger", "message", "request_id", "method", "path", "status"}
    fields.add("duration_ms")
    assert set(line) == fields
    assert (line["request_id"], line["status"], line["path"]) == ("req_line", 201, "/v1/charges")
