"""A Server-Sent Events parser (WHATWG rules): lines in, events out, the last event id kept."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SseEvent", "SseParser"]


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str
    data: str
    id: str | None


class SseParser:
    """Feed decoded lines (without their line break); each blank line dispatches the event gathered."""

    def __init__(self) -> None:
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, line: str) -> Iterator[SseEvent]:
        if line == "":
            if self._data:
                if self._id is not None:
                    self.last_event_id = self._id
                yield SseEvent(self._event or "message", "\n".join(self._data), self.last_event_id)
            self._event, self._data, self._id = "", [], None
            return
        if line.startswith(":"):
            return  # a comment: keep-alive
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        elif field == "id" and "\x00" not in value:
            self._id = value
        elif field == "retry" and value.isdigit():
            self.retry_ms = int(value)
