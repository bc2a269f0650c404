"""API key pairs: formats, generation, the stored digest and the 10-key limit."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.ids import new_id

MAX_ACTIVE_KEYS = 10
MAX_KEY_NAME = 100
KEY_BODY_LENGTH = 32


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    merchant_id: str
    name: str
    environment: Environment
    publishable_key: str
    secret_key_last4: str
    created: datetime
    revoked_at: datetime | None = None
    secret_key: str | None = None
    """Set only on the object returned by creation; never stored."""

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


def new_key_pair(environment: Environment) -> tuple[str, str]:
    """(`pk_<env>_` + 32, `sk_<env>_` + 32) from a CSPRNG."""
    env = environment.value
    return new_id(f"pk_{env}_", KEY_BODY_LENGTH), new_id(f"sk_{env}_", KEY_BODY_LENGTH)


def secret_key_digest(secret_key: str) -> str:
    """SHA-256 suffices: the keys carry 190 bits of entropy, so no slow KDF is needed to resist guessing."""
    return hashlib.sha256(secret_key.encode()).hexdigest()


def key_kind(key: str) -> tuple[str, Environment] | None:
    """('secret'|'publishable', environment) for a well-formed key, else None."""
    for prefix, kind in (("sk_", "secret"), ("pk_", "publishable")):
        for environment in Environment:
            head = f"{prefix}{environment.value}_"
            if key.startswith(head) and len(key) == len(head) + KEY_BODY_LENGTH:
                return kind, environment
    return None
