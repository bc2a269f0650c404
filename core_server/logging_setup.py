"""JSON log lines carrying the request id, never a secret, written off the event loop."""

from __future__ import annotations

import os
import sys

from connect.log_format import JsonFormatter
from connect.log_writer import QueuedLogHandler, replace_root_handler

from core_server.rpc.request_context import RequestIdFilter


def configure_logging(process: str) -> None:
    """One JSON handler on stdout (connect/log_format.py: the shape every process writes), written by a
    thread (connect/log_writer.py); the request id is captured by the filter where the line is logged."""
    handler = QueuedLogHandler(sys.stdout)
    handler.setFormatter(JsonFormatter(process))
    handler.addFilter(RequestIdFilter())
    replace_root_handler(handler, os.environ.get("LOG_LEVEL", "INFO").upper())
