"""JsonFormatter: one JSON object per log line, in the same shape in every process of the platform.

The core, its webhook dispatcher and the gateway each used to write their own shape (`time` in one,
`ts` in the other; the gateway kept `extra=` fields, the core dropped them), so a log shipper needed a
parser per process. Now every line is

    {"ts", "level", "process", "logger", "message", "request_id", ...extra fields, "exc_info"?}

`ts` is ISO 8601 UTC with milliseconds; `request_id` is what the process's filter put on the record where
it was logged (None without one); fields passed with `extra=` follow; a stack trace, when logged, is in
`exc_info` — operators' logs only, never a response. Lines are ASCII (JSON escapes): a path with a lone
surrogate or a stream without UTF-8 can never fail a write, which would lose the whole batch of lines the
writer thread holds. Stdlib only, like `connect.log_writer`.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; anything else was passed with `extra=` and is copied into the line.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
}


def line_timestamp(created: float) -> str:
    """A record's time as every line writes it: `2026-11-28T18:19:28.738+00:00`."""
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """`process` names the process in every line: `core`, `webhook-dispatcher`, `gateway`."""

    def __init__(self, process: str) -> None:
        super().__init__()
        self.process = process

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": line_timestamp(record.created),
            "level": record.levelname.lower(),
            "process": self.process,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)
