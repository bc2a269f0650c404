"""Core settings of webhook fairness, DNS time-outs and retention: defaults, overrides, refusals."""

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
    assert settings.webhook_merchant_concurrency == 16  # half of WEBHOOK_CONCURRENCY's 32
    assert settings.webhook_dns_timeout_seconds == 3.0
    assert settings.event_retention_seconds == 30 * 86400
    assert settings.retention_interval_seconds == 600


def test_the_merchant_cap_follows_the_global_one_unless_set() -> None:
    assert Settings.from_env({**BASE, "WEBHOOK_CONCURRENCY": "10"}).webhook_merchant_concurrency == 5
    assert Settings.from_env({**BASE, "WEBHOOK_CONCURRENCY": "1"}).webhook_merchant_concurrency == 1
    env = {**BASE, "WEBHOOK_CONCURRENCY": "10", "WEBHOOK_MERCHANT_CONCURRENCY": "7"}
    assert Settings.from_env(env).webhook_merchant_concurrency == 7


def test_retention_in_days_or_overridden_in_seconds() -> None:
    assert Settings.from_env({**BASE, "EVENT_RETENTION_DAYS": "7"}).event_retention_seconds == 7 * 86400
    env = {**BASE, "EVENT_RETENTION_DAYS": "7", "EVENT_RETENTION_SECONDS": "20"}
    assert Settings.from_env(env).event_retention_seconds == 20


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("WEBHOOK_MERCHANT_CONCURRENCY", "0", "WEBHOOK_MERCHANT_CONCURRENCY"),
        ("WEBHOOK_DNS_TIMEOUT_SECONDS", "0", "WEBHOOK_DNS_TIMEOUT_SECONDS"),
        ("EVENT_RETENTION_DAYS", "0", "EVENT_RETENTION_DAYS"),
        ("EVENT_RETENTION_SECONDS", "-1", "EVENT_RETENTION_SECONDS"),
        ("RETENTION_INTERVAL_SECONDS", "0", "RETENTION_INTERVAL_SECONDS"),
    ],
)
def test_refuses_nonsense(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({**BASE, name: value})


def test_webhooks_are_delivered_from_a_process_of_the_core_unless_inline_is_asked() -> None:
    assert Settings.from_env(BASE).webhook_dispatch == "process"
    assert Settings.from_env({**BASE, "WEBHOOK_DISPATCH": "inline"}).webhook_dispatch == "inline"
    assert Settings.from_env({**BASE, "WEBHOOK_DISPATCH": " Process "}).webhook_dispatch == "process"
    with pytest.raises(ConfigError, match="WEBHOOK_DISPATCH"):
        Settings.from_env({**BASE, "WEBHOOK_DISPATCH": "thread"})
