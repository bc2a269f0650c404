"""QueuedLogHandler: log records queued on the caller's thread, formatted and written by a writer thread.

Both processes log through it (stdlib only, like `connect.errors`). Formatting a JSON line and writing it
to the stream on the event loop cost the gateway ~12 % of a create (BENCHMARKS.md, "Speed, round 3").
Here the caller only captures what the writer thread cannot see (the request id in a ContextVar, through
the handler's filters) and appends the record to a bounded deque; the thread wakes every
`interval` seconds, formats everything pending and writes it in one call. A full queue drops the record
and counts it — logging never blocks the loop — and the writer reports the count in its next write.
`flush()` and `close()` (called by `logging.shutdown()` at exit) write what is still pending.

`emit_line` queues a line its caller formatted itself, for a line so frequent that a LogRecord and the
formatter are most of its cost (the gateway's access line, one per request); it shares the queue, its
bound and the drop count with the records, so lines still reach the stream in the order they were logged.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import TextIO

DEFAULT_CAPACITY = 10_000
DEFAULT_INTERVAL_SECONDS = 0.05


class QueuedLogHandler(logging.Handler):
    """Lock-free on the caller's side: filters run there, formatting and I/O on the writer thread."""

    def __init__(
        self,
        stream: TextIO,
        *,
        capacity: int = DEFAULT_CAPACITY,
        interval: float = DEFAULT_INTERVAL_SECONDS,
    ) -> None:
        super().__init__()
        self.stream = stream
        self.capacity = capacity
        self.dropped = 0  # records refused because the queue was full, since the start
        self._reported = 0
        self._interval = interval
        self._pending: collections.deque[logging.LogRecord | str] = collections.deque()
        self._write_lock = threading.Lock()  # the writer thread and flush() never interleave lines
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="log-writer", daemon=True)
        self._thread.start()

    def handle(self, record: logging.LogRecord) -> bool:
        # No handler lock: deque.append is atomic, and the filters only set attributes on this record.
        if not self.filter(record):
            return False
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        if len(self._pending) >= self.capacity:
            self.dropped += 1
            return
        self._pending.append(record)

    def emit_line(self, line: str) -> None:
        """Queue `line` (one JSON object, no newline) as it is, under the same bound as a record."""
        if len(self._pending) >= self.capacity:
            self.dropped += 1
            return
        self._pending.append(line)

    def flush(self) -> None:
        self._drain()

    def close(self) -> None:
        self._stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._drain()
        super().close()

    def _run(self) -> None:
        while not self._stopping.wait(self._interval):
            self._drain()

    def _drain(self) -> None:
        with self._write_lock:
            lines: list[str] = []
            while self._pending:
                record = self._pending.popleft()
                if isinstance(record, str):
                    lines.append(record)
                    continue
                try:
                    lines.append(self.format(record))
                except Exception:  # a bad record costs its own line, never the others
                    self.handleError(record)
            dropped = self.dropped
            if dropped != self._reported:
                notice = logging.LogRecord(
                    "log_writer", logging.WARNING, __file__, 0,
                    "%d log lines dropped: the log queue was full", (dropped - self._reported,), None,
                )  # fmt: skip
                self._reported = dropped
                lines.append(self.format(notice))
            if not lines:
                return
            try:
                self.stream.write("\n".join(lines) + "\n")
                self.stream.flush()
            except (OSError, ValueError):  # a closed or broken stream: nothing better to do with the lines
                pass


def replace_root_handler(handler: logging.Handler, level: int | str) -> None:
    """Make `handler` the root logger's only handler, closing a queued handler it replaces (its thread)."""
    root = logging.getLogger()
    for old in root.handlers:
        if isinstance(old, QueuedLogHandler) and old is not handler:
            old.close()
    root.handlers[:] = [handler]
    root.setLevel(level)
