"""Core failure timers (docs/running.md): defaults, overrides, and the one ordering they need."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError, Settings

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": KEY * 40,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


def test_defaults() -> None:
    settings = Settings.from_env(BASE)
    assert settings.db_pool_timeout_seconds == 5.0
    assert settings.idempotency_claim_seconds == 60.0
    assert settings.shutdown_grace_seconds == 8.0
    assert (settings.db_statement_timeout_seconds, settings.db_idle_in_transaction_timeout_seconds) == (
        10,
        15,
    )
    assert (settings.core_heartbeat_seconds, settings.core_heartbeat_lapse_seconds) == (1, 3)


def test_overrides() -> None:
    settings = Settings.from_env(
        {
            **BASE,
            "DB_POOL_TIMEOUT_SECONDS": "1.5",
            "IDEMPOTENCY_CLAIM_SECONDS": "9",
            "ASK_TIMEOUT_SECONDS": "4",
            "SHUTDOWN_GRACE_SECONDS": "2",
            "DB_STATEMENT_TIMEOUT_SECONDS": "3",
            "DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS": "5",
        }
    )
    assert (settings.db_pool_timeout_seconds, settings.idempotency_claim_seconds) == (1.5, 9.0)
    assert settings.shutdown_grace_seconds == 2.0
    assert (settings.db_statement_timeout_seconds, settings.db_idle_in_transaction_timeout_seconds) == (3, 5)


@pytest.mark.parametrize("claim", ["8", "3"])
def test_a_claim_must_outlive_the_request_it_guards(claim: str) -> None:
    """A claim lapsing while its request may still run would let a retry run the operation again."""
    with pytest.raises(ConfigError, match="IDEMPOTENCY_CLAIM_SECONDS"):
        Settings.from_env({**BASE, "ASK_TIMEOUT_SECONDS": "8", "IDEMPOTENCY_CLAIM_SECONDS": claim})


@pytest.mark.parametrize(
    "override",
    [
        {"DB_STATEMENT_TIMEOUT_SECONDS": "60"},
        {"DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS": "61"},
        {"DB_STATEMENT_TIMEOUT_SECONDS": "0"},
        {"CORE_HEARTBEAT_LAPSE_SECONDS": "1.5"},
        {"CORE_HEARTBEAT_LAPSE_SECONDS": "60"},
    ],
)
def test_no_statement_and_no_heartbeat_lapse_may_outlive_a_claim(override: dict[str, str]) -> None:
    """A statement running past its claim could commit after a retry took the claim over; a lapse under
    two beats would call a live core dead."""
    with pytest.raises(ConfigError, match=next(iter(override))):
        Settings.from_env({**BASE, **override})
