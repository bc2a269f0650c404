"""DATA_ENCRYPTION_KEYS (older keys, still opening) and DATA_FINGERPRINT_KEY: parsed and refused like
DATA_ENCRYPTION_KEY, so a typo stops the core at start rather than failing reads later."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError, Settings

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

A, B, C = bytes(32), bytes(range(32)), bytes(range(1, 33))
BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": KEY * 40,
    "DATA_ENCRYPTION_KEY": base64.b64encode(A).decode(),
}


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode()


def test_older_keys_are_a_comma_separated_list_and_default_to_none() -> None:
    assert Settings.from_env(BASE).data_encryption_keys == ()
    keys = f" {b64(B)} ,{b64(C)},"
    assert Settings.from_env({**BASE, "DATA_ENCRYPTION_KEYS": keys}).data_encryption_keys == (B, C)


def test_the_fingerprint_key_defaults_to_the_encryption_key() -> None:
    assert Settings.from_env(BASE).fingerprint_master == A
    assert Settings.from_env({**BASE, "DATA_FINGERPRINT_KEY": b64(B)}).fingerprint_master == B


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DATA_ENCRYPTION_KEYS", "not base64!", "DATA_ENCRYPTION_KEYS must be base64"),
        ("DATA_ENCRYPTION_KEYS", f"{b64(B)},{b64(bytes(16))}", "DATA_ENCRYPTION_KEYS must decode to 32"),
        ("DATA_FINGERPRINT_KEY", b64(bytes(31)), "DATA_FINGERPRINT_KEY must decode to 32"),
        ("DATA_ENCRYPTION_KEY", b64(bytes(33)), "DATA_ENCRYPTION_KEY must decode to 32"),
    ],
)
def test_malformed_keys_refuse_to_start(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({**BASE, name: value})
