"""What a retry with a used Idempotency-Key gets back (DESIGN §6): the first answer's bytes, or its error.

Plain values, so the gRPC error table (`rpc/status.py`) can recognise a replay without importing the
kernel's use cases: the runtime sits below the kernel's application (import contract
`runtime-below-the-kernel`), as the database plumbing does.
"""

from __future__ import annotations

from dataclasses import dataclass

from core_server.kernel.domain.errors import DomainError


@dataclass(frozen=True, slots=True)
class Replay:
    """The stored answer of the first request, as the bytes the transport rendered then."""

    response: bytes


@dataclass(frozen=True, slots=True)
class StoredError:
    """A state error answered to the first request, replayed as it was."""

    type: str
    code: str
    message: str
    param: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"type": self.type, "code": self.code, "message": self.message, "param": self.param}

    @classmethod
    def from_json(cls, data: dict[str, str | None]) -> StoredError:
        return cls(
            type=str(data["type"]),
            code=str(data["code"]),
            message=str(data["message"]),
            param=data.get("param"),
        )


class ReplayedError(DomainError):
    """The first request's state error, raised again with its original type, code and param."""

    def __init__(self, stored: StoredError) -> None:
        super().__init__(stored.message, code=stored.code, param=stored.param)
        self.type = stored.type
