"""JSON log lines carrying the request id, never a secret."""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime

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
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter(process))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(os.environ.get("LOG_LEVEL", "INFO").upper())
