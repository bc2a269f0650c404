"""LOGIN_KDF_WORKERS and LOGIN_KDF_QUEUE: the bounded password-hashing pool's size, validated at start."""

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


def test_defaults_are_two_workers_and_eight_waiting() -> None:
    settings = Settings.from_env(BASE)
    assert (settings.login_kdf_workers, settings.login_kdf_queue) == (2, 8)


def test_the_pool_size_is_read_from_the_environment() -> None:
    settings = Settings.from_env({**BASE, "LOGIN_KDF_WORKERS": "4", "LOGIN_KDF_QUEUE": "0"})
    assert (settings.login_kdf_workers, settings.login_kdf_queue) == (4, 0)


@pytest.mark.parametrize(
    ("name", "value"),
    [("LOGIN_KDF_WORKERS", "0"), ("LOGIN_KDF_QUEUE", "-1"), ("LOGIN_KDF_WORKERS", "two")],
)
def test_a_bad_pool_size_refuses_to_start(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({**BASE, name: value})


def test_one_addresss_share_defaults_to_a_quarter_of_the_pool_and_can_be_set() -> None:
    from core_server.security.kdf_pool import KdfPool

    default = Settings.from_env(BASE)
    assert default.login_kdf_per_address is None
    pool = KdfPool(default.login_kdf_workers, default.login_kdf_queue, default.login_kdf_per_address)
    try:
        assert pool.per_owner == 2
    finally:
        pool.close()
    assert Settings.from_env({**BASE, "LOGIN_KDF_PER_ADDRESS": "3"}).login_kdf_per_address == 3
    with pytest.raises(ConfigError, match="LOGIN_KDF_PER_ADDRESS"):
        Settings.from_env({**BASE, "LOGIN_KDF_PER_ADDRESS": "0"})


def test_webhook_reserved_slots_default_to_a_quarter_and_can_be_set() -> None:
    assert Settings.from_env(BASE).webhook_reserved_slots is None  # the dispatcher takes concurrency // 4
    assert Settings.from_env({**BASE, "WEBHOOK_RESERVED_SLOTS": "0"}).webhook_reserved_slots == 0
    with pytest.raises(ConfigError, match="WEBHOOK_RESERVED_SLOTS"):
        Settings.from_env({**BASE, "WEBHOOK_RESERVED_SLOTS": "-1"})
