"""CLI sessions (DESIGN §10.6): the limit, the device name, the lifetime and the per-device secret.

The secret is derived, not stored: HMAC-SHA256 of (merchant, device name) under a key of the platform,
so `payconnect listen` on the same machine gets the same `whsec_…` across restarts and sessions, a
developer's handler configured once keeps verifying, and no table ever holds a signing secret.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from core_server.kernel.domain.errors import ParameterInvalid, ParameterMissing
from core_server.kernel.domain.ids import ALPHANUMERIC, new_id

MAX_OPEN_SESSIONS = 5
"""DESIGN §10.6: at most 5 open sessions per merchant (a device's new session replaces its open one)."""
SESSION_LIFETIME = timedelta(hours=24)
"""The stream of a session ends then; the CLI opens a new one for the same device (same secret)."""
MAX_DEVICE_NAME = 100
SESSION_PREFIX = "clis_"
RESPONSE_PREFIX = "clir_"
ID_LENGTH = 24
SECRET_PREFIX = "whsec_"
SECRET_BODY_LENGTH = 32


@dataclass(frozen=True, slots=True)
class StreamPosition:
    """A place in the merchant's TEST event log: (inserting transaction, seq), ordered as a pair."""

    tx: int
    seq: int


@dataclass(frozen=True, slots=True)
class CliSession:
    id: str
    merchant_id: str
    device_name: str
    created: datetime
    expires_at: datetime
    start: StreamPosition
    """Where a stream without a (known) Last-Event-ID begins: just before the session opened."""
    closed_at: datetime | None = None
    secret: str | None = None
    """Set only on the objects the API answers with; derived again for every stream."""

    def is_open(self, now: datetime) -> bool:
        return self.closed_at is None and now < self.expires_at


def new_session_id() -> str:
    return new_id(SESSION_PREFIX, ID_LENGTH)


def new_response_id() -> str:
    return new_id(RESPONSE_PREFIX, ID_LENGTH)


def validate_device_name(device_name: str) -> str:
    """1 to 100 printable characters, surrounding blanks dropped (it is shown back in listings)."""
    name = device_name.strip()
    if not name:
        raise ParameterMissing("device_name")
    if len(name) > MAX_DEVICE_NAME or not name.isprintable():
        message = f"device_name must be 1 to {MAX_DEVICE_NAME} printable characters."
        raise ParameterInvalid(message, param="device_name")
    return name


def session_secret(key: bytes, merchant_id: str, device_name: str) -> str:
    """`whsec_` + 32 alphanumerics (~190 bits) from HMAC-SHA256(key, merchant NUL device name)."""
    digest = hmac.new(key, f"{merchant_id}\x00{device_name}".encode(), hashlib.sha256).digest()
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(SECRET_BODY_LENGTH):
        number, index = divmod(number, len(ALPHANUMERIC))
        chars.append(ALPHANUMERIC[index])
    return SECRET_PREFIX + "".join(chars)
