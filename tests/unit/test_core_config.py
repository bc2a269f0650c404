"""Core settings: where the metrics port lands by default, so N cores on one host never clash."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError, Settings

BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": "k" * 40,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


@pytest.mark.parametrize(
    ("grpc_addr", "metrics", "expected"),
    [
        ("127.0.0.1:50051", "", "127.0.0.1:51051"),
        ("127.0.0.1:50052", "", "127.0.0.1:51052"),
        ("[::]:50051", "", ":::51051"),
        ("127.0.0.1:50051", "0.0.0.0:9464", "0.0.0.0:9464"),
        ("127.0.0.1:50051", "off", None),
        ("127.0.0.1:50051", " OFF ", None),
    ],
)
def test_metrics_address(grpc_addr: str, metrics: str, expected: str | None) -> None:
    env = {**BASE, "CORE_GRPC_ADDR": grpc_addr, "CORE_METRICS_ADDR": metrics, "CORE_AUTH_TOKEN": "t"}
    settings = Settings.from_env(env)  # the token: a non-loopback bind needs one
    assert settings.metrics_addr == expected


def test_a_default_metrics_port_past_65535_asks_for_an_explicit_one() -> None:
    with pytest.raises(ConfigError, match="CORE_METRICS_ADDR"):
        Settings.from_env({**BASE, "CORE_GRPC_ADDR": "127.0.0.1:65000"})
