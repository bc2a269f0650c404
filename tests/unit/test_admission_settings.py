"""The admission bounds of both processes: defaults, the environment, and bad values refused at start."""

from __future__ import annotations

import base64

import pytest

from core_server.config import ConfigError as CoreConfigError
from core_server.config import Settings as CoreSettings
from http_gateway.config import ConfigError as GatewayConfigError
from http_gateway.config import Settings as GatewaySettings

KEY = "k" * 32
CORE_BASE = {
    "DATABASE_URL": "postgresql://db/x",
    "JWT_SIGNING_KEY": KEY,
    "DATA_ENCRYPTION_KEY": base64.b64encode(bytes(32)).decode(),
}


def test_gateway_defaults_are_64_calls_a_line_of_64_and_50_ms() -> None:
    s = GatewaySettings.from_env({"JWT_SIGNING_KEY": KEY})
    assert (s.max_core_calls, s.core_call_queue, s.core_call_wait_seconds) == (64, 64, 0.05)


def test_gateway_bounds_come_from_the_environment() -> None:
    env = {"GATEWAY_MAX_CORE_CALLS": "0", "GATEWAY_CORE_CALL_QUEUE": "3", "GATEWAY_CORE_CALL_WAIT_MS": "20"}
    s = GatewaySettings.from_env({"JWT_SIGNING_KEY": KEY, **env})
    assert (s.max_core_calls, s.core_call_queue, s.core_call_wait_seconds) == (0, 3, 0.02)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GATEWAY_MAX_CORE_CALLS", "-1"),
        ("GATEWAY_CORE_CALL_QUEUE", "-2"),
        ("GATEWAY_CORE_CALL_WAIT_MS", "-5"),
    ],
)
def test_a_negative_gateway_bound_refuses_to_start(name: str, value: str) -> None:
    with pytest.raises(GatewayConfigError, match=name):
        GatewaySettings.from_env({"JWT_SIGNING_KEY": KEY, name: value})


def test_core_default_is_128_and_0_means_no_bound() -> None:
    assert CoreSettings.from_env(CORE_BASE).max_in_flight_rpcs == 128
    assert CoreSettings.from_env({**CORE_BASE, "CORE_MAX_IN_FLIGHT_RPCS": "0"}).max_in_flight_rpcs == 0


@pytest.mark.parametrize("value", ["-1", "many"])
def test_a_bad_core_bound_refuses_to_start(value: str) -> None:
    with pytest.raises(CoreConfigError, match="CORE_MAX_IN_FLIGHT_RPCS"):
        CoreSettings.from_env({**CORE_BASE, "CORE_MAX_IN_FLIGHT_RPCS": value})
