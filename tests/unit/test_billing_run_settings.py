"""The billing run's parallelism: its default, the environment, and bad values refused at start."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError, Settings

BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": "k" * 32,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


def test_sixteen_subscriptions_at_once_by_default() -> None:
    assert Settings.from_env(BASE).billing_parallel == 16


def test_the_environment_sets_it() -> None:
    assert Settings.from_env({**BASE, "BILLING_PARALLEL": "48"}).billing_parallel == 48


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bound_below_one_or_not_a_number_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match="BILLING_PARALLEL"):
        Settings.from_env({**BASE, "BILLING_PARALLEL": value})
