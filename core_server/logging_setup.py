"""JSON log lines carrying the request id, never a secret, written off the event loop."""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime

from connect.log_writer import QueuedLogHandler, replace_root_handler

from core_server.rpc.request_context import RequestIdFilter


class JsonFormatter(logging.Formatter):
    def __init__(self, process: str) -> None:
        super().__init__()
        self._process = process

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "process": self._process,
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage(),
        }
        if record.exc_info:
            # Stack traces stay in the operator's log; they never reach a response.
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def configure_logging(process: str) -> None:
    """One JSON handler on stdout, written by a thread (connect/log_writer.py); the request id is
    captured by the filter where the line is logged."""
    handler = QueuedLogHandler(sys.stdout)
    handler.setFormatter(JsonFormatter(process))
    handler.addFilter(RequestIdFilter())
    replace_root_handler(handler, os.environ.get("LOG_LEVEL", "INFO").upper())
