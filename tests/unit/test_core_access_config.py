"""Core settings for its gRPC port and webhook targets: who may reach the core, and what TEST may reach."""

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


@pytest.mark.parametrize("addr", ["127.0.0.1:50051", "127.0.0.2:50051", "[::1]:50051", "localhost:50051"])
def test_a_loopback_bind_needs_no_token(addr: str) -> None:
    settings = Settings.from_env({**BASE, "CORE_GRPC_ADDR": addr})
    assert settings.auth_token is None and not settings.tls_enabled


@pytest.mark.parametrize(
    "addr", ["0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.4:50051", "core.internal:50051"]
)
def test_a_non_loopback_bind_without_a_token_refuses_to_start(addr: str, tmp_path: Path) -> None:
    tls = tls_files(tmp_path)
    with pytest.raises(ConfigError, match="CORE_AUTH_TOKEN"):
        Settings.from_env({**BASE, **tls, "CORE_GRPC_ADDR": addr})
    with_token = Settings.from_env({**BASE, **tls, "CORE_GRPC_ADDR": addr, "CORE_AUTH_TOKEN": "s3cret"})
    assert with_token.auth_token == "s3cret"


@pytest.mark.parametrize(
    "addr", ["0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.4:50051", "core.internal:50051"]
)
def test_a_non_loopback_bind_with_a_token_but_no_tls_refuses_to_start_naming_tls(addr: str) -> None:
    """DESIGN §10.9: off loopback the token and card data would cross the network in clear."""
    with pytest.raises(ConfigError, match="without TLS: set CORE_TLS_CERT_FILE and CORE_TLS_KEY_FILE"):
        Settings.from_env({**BASE, "CORE_GRPC_ADDR": addr, "CORE_AUTH_TOKEN": "s3cret"})


def test_a_loopback_bind_needs_no_tls_even_with_a_token() -> None:
    settings = Settings.from_env({**BASE, "CORE_GRPC_ADDR": "127.0.0.1:50051", "CORE_AUTH_TOKEN": "s3cret"})
    assert settings.auth_token == "s3cret" and not settings.tls_enabled


@pytest.mark.parametrize("key", ["", "k" * 31, "é" * 15])
def test_a_jwt_signing_key_shorter_than_32_bytes_refuses_to_start_naming_it(key: str) -> None:
    with pytest.raises(ConfigError, match="JWT_SIGNING_KEY"):
        Settings.from_env({**BASE, "JWT_SIGNING_KEY": key})
    assert Settings.from_env({**BASE, "JWT_SIGNING_KEY": "é" * 16}).jwt_signing_key == "é" * 16


def tls_files(tmp_path: Path) -> dict[str, str]:
    cert, key = tmp_path / "core.crt", tmp_path / "core.key"
    cert.write_text("cert")
    key.write_text("key")
    return {"CORE_TLS_CERT_FILE": str(cert), "CORE_TLS_KEY_FILE": str(key)}


def test_tls_files_come_both_or_neither_and_must_exist(tmp_path: Path) -> None:
    cert, key = tmp_path / "core.crt", tmp_path / "core.key"
    cert.write_text("cert")
    key.write_text("key")
    settings = Settings.from_env({**BASE, "CORE_TLS_CERT_FILE": str(cert), "CORE_TLS_KEY_FILE": str(key)})
    assert settings.tls_enabled and (settings.tls_cert_file, settings.tls_key_file) == (str(cert), str(key))
    for only in ({"CORE_TLS_CERT_FILE": str(cert)}, {"CORE_TLS_KEY_FILE": str(key)}):
        with pytest.raises(ConfigError, match="together"):
            Settings.from_env({**BASE, **only})
    missing = str(tmp_path / "absent.key")
    with pytest.raises(ConfigError, match="CORE_TLS_KEY_FILE"):
        Settings.from_env({**BASE, "CORE_TLS_CERT_FILE": str(cert), "CORE_TLS_KEY_FILE": missing})


def test_tls_alone_does_not_open_a_public_bind(tmp_path: Path) -> None:
    cert, key = tmp_path / "core.crt", tmp_path / "core.key"
    cert.write_text("cert")
    key.write_text("key")
    tls = {"CORE_TLS_CERT_FILE": str(cert), "CORE_TLS_KEY_FILE": str(key), "CORE_GRPC_ADDR": "0.0.0.0:50051"}
    with pytest.raises(ConfigError, match="CORE_AUTH_TOKEN"):
        Settings.from_env({**BASE, **tls})


@pytest.mark.parametrize(("value", "expected"), [(None, False), ("", False), ("0", False), ("1", True)])
def test_private_webhook_targets_are_off_unless_the_operator_says_1(
    value: str | None, expected: bool
) -> None:
    env = dict(BASE) if value is None else {**BASE, "WEBHOOK_ALLOW_PRIVATE_TARGETS": value}
    assert Settings.from_env(env).webhook_allow_private_targets is expected


@pytest.mark.parametrize("value", ["yes", "true", "2"])
def test_an_unclear_private_targets_value_refuses_to_start(value: str) -> None:
    with pytest.raises(ConfigError, match="WEBHOOK_ALLOW_PRIVATE_TARGETS"):
        Settings.from_env({**BASE, "WEBHOOK_ALLOW_PRIVATE_TARGETS": value})
