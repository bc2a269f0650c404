"""Log lines are single JSON objects carrying the request id of the request being handled."""

from __future__ import annotations

import json
import logging
import re

from http_gateway.observability.logging_setup import JsonFormatter, new_request_id, request_id_var


def test_request_ids_are_req_and_24_alphanumerics():
    ids = {new_request_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(re.fullmatch(r"req_[A-Za-z0-9]{24}", i) for i in ids)


def test_a_log_line_is_json_with_request_id_and_extras():
    token = request_id_var.set("req_abc")
    try:
        record = logging.LogRecord("http_gateway", logging.INFO, __file__, 1, "hello %s", ("world",), None)
        record.status = 201
        line = json.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(token)
    assert line["message"] == "hello world"
    assert line["request_id"] == "req_abc"
    assert line["status"] == 201
    assert line["level"] == "info"
