"""Production topology settings (DESIGN §10.8, docs/operations.md): the pooler, the LISTEN URL and Sentinel,
read alike by the core and the gateway."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from core_server.config import ConfigError, Settings
from core_server.db.pool import pooled_connect_query
from http_gateway.config import ConfigError as GatewayConfigError
from http_gateway.config import Settings as GatewaySettings

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

BASE = {
    "DATABASE_URL": "postgresql://db1:5432,db2:5432/pc?target_session_attrs=read-write",
    "JWT_SIGNING_KEY": KEY * 40,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


def test_without_a_pooler_listen_uses_the_database_url() -> None:
    settings = Settings.from_env(BASE)
    assert settings.database_pooler == ""
    assert settings.listen_url == BASE["DATABASE_URL"]


def test_behind_pgbouncer_listen_goes_direct() -> None:
    settings = Settings.from_env(
        {**BASE, "DATABASE_POOLER": "PgBouncer", "DATABASE_LISTEN_URL": "postgresql://db1:5432/pc"}
    )
    assert settings.database_pooler == "pgbouncer"
    assert settings.listen_url == "postgresql://db1:5432/pc"


def test_pgbouncer_without_a_listen_url_is_refused() -> None:
    with pytest.raises(ConfigError, match="DATABASE_LISTEN_URL"):
        Settings.from_env({**BASE, "DATABASE_POOLER": "pgbouncer"})


def test_an_unknown_pooler_is_refused() -> None:
    with pytest.raises(ConfigError, match="DATABASE_POOLER"):
        Settings.from_env({**BASE, "DATABASE_POOLER": "pgpool", "DATABASE_LISTEN_URL": "postgresql://x/y"})


@pytest.mark.parametrize("settings_class", [Settings, GatewaySettings])
def test_sentinels_are_host_port_pairs(settings_class: Any) -> None:
    env = {**BASE, "REDIS_SENTINELS": "10.0.0.1:26379, [::1]:26380,", "REDIS_SENTINEL_SERVICE": "pc"}
    settings = settings_class.from_env(env)
    assert settings.redis_sentinels == (("10.0.0.1", 26379), ("::1", 26380))
    assert settings.redis_sentinel_service == "pc"


@pytest.mark.parametrize(
    "env",
    [
        {"REDIS_SENTINELS": "10.0.0.1"},
        {"REDIS_SENTINELS": "10.0.0.1:port", "REDIS_SENTINEL_SERVICE": "pc"},
        {"REDIS_SENTINELS": "10.0.0.1:26379"},
        {"REDIS_SENTINEL_SERVICE": "pc"},
    ],
)
@pytest.mark.parametrize("settings_class", [Settings, GatewaySettings])
def test_sentinel_settings_come_together_and_well_formed(settings_class: Any, env: dict[str, str]) -> None:
    with pytest.raises((ConfigError, GatewayConfigError), match="REDIS_SENTINEL"):
        settings_class.from_env({**BASE, **env})


def test_the_connect_query_sets_the_core_time_outs_in_milliseconds() -> None:
    assert pooled_connect_query(10, 15) == (
        "SET statement_timeout = 10000; SET idle_in_transaction_session_timeout = 15000; "
        "SET client_connection_check_interval = 1000"
    )
