"""What the developer's local endpoint answered for a streamed event, as the CLI reports it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.errors import ParameterInvalid

MAX_ERROR = 500
MAX_LATENCY_MS = 3_600_000


@dataclass(frozen=True, slots=True)
class CliResponse:
    """Shaped like a webhook delivery attempt: a status or an error, success for any 2xx."""

    id: str
    session_id: str
    event_id: str
    event_type: str
    status_code: int | None
    succeeded: bool
    error: str | None
    latency_ms: int | None
    created: datetime


@dataclass(frozen=True, slots=True)
class ReportedAnswer:
    status_code: int | None
    error: str | None
    latency_ms: int | None

    @property
    def succeeded(self) -> bool:
        """The webhook rule (DESIGN §7): any 2xx."""
        return self.status_code is not None and 200 <= self.status_code <= 299


def validate_answer(status_code: int | None, error: str | None, latency_ms: int | None) -> ReportedAnswer:
    if status_code is not None and not 100 <= status_code <= 599:
        raise ParameterInvalid("status must be an HTTP status code (100 to 599).", param="status")
    if error is not None and len(error) > MAX_ERROR:
        raise ParameterInvalid(f"error must be at most {MAX_ERROR} characters.", param="error")
    if status_code is None and not error:
        raise ParameterInvalid("Report the status your endpoint answered, or an error.", param="status")
    if latency_ms is not None and not 0 <= latency_ms <= MAX_LATENCY_MS:
        raise ParameterInvalid(f"latency_ms must be 0 to {MAX_LATENCY_MS}.", param="latency_ms")
    return ReportedAnswer(status_code, error or None, latency_ms)
