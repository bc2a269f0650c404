"""Core failure timers (README, Failure behaviour): defaults, overrides, and the one ordering they need."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError, Settings

BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": "k" * 40,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


def test_defaults() -> None:
    settings = Settings.from_env(BASE)
    assert settings.db_pool_timeout_seconds == 5.0
    assert settings.idempotency_claim_seconds == 60.0
    assert settings.shutdown_grace_seconds == 8.0


def test_overrides() -> None:
    settings = Settings.from_env(
        {
            **BASE,
            "DB_POOL_TIMEOUT_SECONDS": "1.5",
            "IDEMPOTENCY_CLAIM_SECONDS": "9",
            "ASK_TIMEOUT_SECONDS": "4",
            "SHUTDOWN_GRACE_SECONDS": "2",
        }
    )
    assert (settings.db_pool_timeout_seconds, settings.idempotency_claim_seconds) == (1.5, 9.0)
    assert settings.shutdown_grace_seconds == 2.0


@pytest.mark.parametrize("claim", ["8", "3"])
def test_a_claim_must_outlive_the_request_it_guards(claim: str) -> None:
    """A claim lapsing while its request may still run would let a retry run the operation again."""
    with pytest.raises(ConfigError, match="IDEMPOTENCY_CLAIM_SECONDS"):
        Settings.from_env({**BASE, "ASK_TIMEOUT_SECONDS": "8", "IDEMPOTENCY_CLAIM_SECONDS": claim})
