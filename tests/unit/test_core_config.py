"""Core settings: where the metrics port lands by default, so N cores on one host never clash."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from core_server.config import ConfigError, Settings

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": KEY * 40,
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
def test_metrics_address(grpc_addr: str, metrics: str, expected: str | None, tmp_path: Path) -> None:
    cert, key = tmp_path / "core.crt", tmp_path / "core.key"
    cert.write_text("cert")
    key.write_text("key")
    # The token and TLS: a non-loopback bind needs both (DESIGN §10.9).
    tls = {"CORE_TLS_CERT_FILE": str(cert), "CORE_TLS_KEY_FILE": str(key)}
    env = {**BASE, **tls, "CORE_GRPC_ADDR": grpc_addr, "CORE_METRICS_ADDR": metrics, "CORE_AUTH_TOKEN": "t"}
    settings = Settings.from_env(env)
    assert settings.metrics_addr == expected


def test_a_default_metrics_port_past_65535_asks_for_an_explicit_one() -> None:
    with pytest.raises(ConfigError, match="CORE_METRICS_ADDR"):
        Settings.from_env({**BASE, "CORE_GRPC_ADDR": "127.0.0.1:65000"})
