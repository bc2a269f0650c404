"""What the command prints: event lines, a live progress line on a terminal, one-line errors."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "event_line", "timestamp"]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def timestamp(moment: float | None = None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() if moment is None else moment))


def event_line(event_type: str, event_id: str, outcome: str, moment: float | None = None) -> str:
    """`<time> <type> <id> → <status>` (DESIGN §10.6)."""
    return f"{timestamp(moment)} {event_type} {event_id} → {outcome}"


class Progress:
    """A status line redrawn in place (only on a terminal: piped output stays one line per event)."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self._stream = stream
        self._live = stream.isatty()
        self._tick = 0
        self.forwarded = 0
        self.failed = 0
        self.state = "connecting"

    def _clear(self) -> None:
        if self._live:
            self._stream.write("\r\x1b[2K")

    def print(self, line: str) -> None:
        """A permanent line above the status line."""
        self._clear()
        self._stream.write(line + "\n")
        self.draw()

    def draw(self) -> None:
        if not self._live:
            self._stream.flush()
            return
        self._tick += 1
        spin = SPINNER[self._tick % len(SPINNER)]
        self._clear()
        self._stream.write(f"{spin} {self.state} · {self.forwarded} forwarded · {self.failed} failed")
        self._stream.flush()

    def finish(self) -> None:
        self._clear()
        self._stream.flush()
