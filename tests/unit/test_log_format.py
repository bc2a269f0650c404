"""Every process writes its log lines in one shape (connect/log_format.py): the core's, the dispatcher's
and the gateway's lines parse with the same keys, and a line never fails to write."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest
from connect.log_format import JsonFormatter

from core_server.logging_setup import configure_logging as configure_core_logging
from core_server.rpc.request_context import request_id_var as core_request_id
from http_gateway.observability.logging_setup import configure_logging as configure_gateway_logging
from http_gateway.observability.logging_setup import request_id_var as gateway_request_id


@pytest.fixture
def restored_root():
    root = logging.getLogger()
    kept = (root.handlers[:], root.level, logging._srcfile, logging.logThreads, logging.logProcesses)
    yield root
    for handler in root.handlers:
        handler.close()
    root.handlers[:], level, logging._srcfile, logging.logThreads, logging.logProcesses = kept
    root.setLevel(level)
    logging.logMultiprocessing = True


def _line_logged_by(configure, request_id_var, monkeypatch, root) -> dict[str, object]:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stream)
    monkeypatch.setattr(sys, "stderr", stream)
    configure()
    handler = root.handlers[0]
    token = request_id_var.set("req_same")
    try:
        logging.getLogger("some.module").warning(
            "charge %s declined", "ch_1", extra={"code": "card_declined"}
        )
    finally:
        request_id_var.reset(token)
    handler.flush()
    return json.loads(stream.getvalue().strip().splitlines()[-1])


def test_the_core_and_the_gateway_write_the_same_keys(monkeypatch, restored_root):
    core = _line_logged_by(
        lambda: configure_core_logging("core"), core_request_id, monkeypatch, restored_root
    )
    gateway = _line_logged_by(configure_gateway_logging, gateway_request_id, monkeypatch, restored_root)
    keys = ["ts", "level", "process", "logger", "message", "request_id", "code"]
    assert list(core) == keys
    assert list(gateway) == keys
    assert (core["process"], gateway["process"]) == ("core", "gateway")
    for line in (core, gateway):
        assert (line["message"], line["request_id"], line["code"]) == (
            "charge ch_1 declined",
            "req_same",
            "card_declined",
        )
        assert line["level"] == "warning"


def test_a_line_outside_a_request_has_no_request_id():
    record = logging.LogRecord("core_server.main", logging.INFO, __file__, 1, "serving", None, None)
    assert json.loads(JsonFormatter("core").format(record))["request_id"] is None


def test_a_stack_trace_is_in_exc_info():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord(
            "core_server.rpc", logging.ERROR, __file__, 1, "failed", None, sys.exc_info()
        )
    line = json.loads(JsonFormatter("core").format(record))
    assert "RuntimeError: boom" in line["exc_info"]


def test_lines_are_ascii_so_a_lone_surrogate_cannot_fail_the_write():
    """A path decoded with surrogateescape, say: as UTF-8 it could not be written, and the writer thread
    would lose the whole batch it holds."""
    record = logging.LogRecord("http_gateway.x", logging.INFO, __file__, 1, "path \udcff ünï", None, None)
    text = JsonFormatter("gateway").format(record)
    assert text.isascii()
    assert json.loads(text)["message"] == "path \udcff ünï"
