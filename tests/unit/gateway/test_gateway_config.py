"""Settings.from_env: defaults, required values, the core address list and the TLS bind rule."""

from __future__ import annotations

import pytest

from http_gateway.config import ConfigError, Settings, core_target
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.versions import LATEST_VERSION, SUPPORTED_VERSIONS, resolve_version

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)


def test_defaults():
    s = Settings.from_env({"JWT_SIGNING_KEY": KEY})
    assert (s.http_host, s.http_port, s.core_grpc_addr, s.redis_url, s.redis_namespace) == (
        "127.0.0.1",
        8000,
        "127.0.0.1:50051",
        "redis://127.0.0.1:6379/0",
        "pc",
    )
    assert (s.rate_limit_live, s.rate_limit_test, s.core_timeout) == (100, 25, 10.0)
    assert s.public_base_url == s.checkout_base_url == "http://127.0.0.1:8000"
    assert s.core_auth_token is None and not s.tls_enabled


def test_signing_key_is_required():
    with pytest.raises(ConfigError):
        Settings.from_env({})


def test_values_from_env():
    s = Settings.from_env(
        {
            "JWT_SIGNING_KEY": KEY,
            "HTTP_PORT": "9000",
            "RATE_LIMIT_TEST": "3",
            "CORE_TIMEOUT_SECONDS": "2.5",
            "PUBLIC_BASE_URL": "https://api.example/",
            "CORE_AUTH_TOKEN": "t",
            "REDIS_NAMESPACE": "x",
        }
    )
    assert (s.http_port, s.rate_limit_test, s.core_timeout, s.public_base_url, s.core_auth_token) == (
        9000,
        3,
        2.5,
        "https://api.example",
        "t",
    )


def test_bad_numbers_are_config_errors():
    with pytest.raises(ConfigError):
        Settings.from_env({"JWT_SIGNING_KEY": KEY, "HTTP_PORT": "eighty"})


def test_single_core_address_is_used_as_is():
    assert core_target("core.internal:50051") == ("core.internal:50051", [])


def test_a_core_address_list_is_balanced_round_robin():
    target, options = core_target("10.0.0.1:50051, 10.0.0.2:50051")
    assert target == "ipv4:10.0.0.1:50051,10.0.0.2:50051"
    assert "round_robin" in dict(options)["grpc.service_config"]


def test_a_list_of_hostnames_is_refused():
    with pytest.raises(ConfigError):
        core_target("a.internal:1,b.internal:1")


def test_plain_http_only_on_loopback_unless_behind_a_tls_proxy():
    Settings(jwt_signing_key=KEY, http_host="127.0.0.1").check_bind_allowed()
    with pytest.raises(ConfigError):
        Settings(jwt_signing_key=KEY, http_host="0.0.0.0").check_bind_allowed()
    Settings(jwt_signing_key=KEY, http_host="0.0.0.0", behind_tls_proxy=True).check_bind_allowed()
    tls = Settings(jwt_signing_key=KEY, http_host="0.0.0.0", tls_cert_file="c", tls_key_file="k")
    tls.check_bind_allowed()


@pytest.mark.parametrize(
    "addr", ["10.0.0.4:50051", "core.internal:50051", "127.0.0.1:50051,10.0.0.4:50051", "dns:///core:50051"]
)
def test_the_token_is_never_sent_over_plaintext_to_a_non_loopback_core(addr: str):
    """DESIGN §10.9: off loopback the token needs CORE_TLS_CA_FILE; the refusal names both."""
    env = {"JWT_SIGNING_KEY": KEY, "CORE_GRPC_ADDR": addr, "CORE_AUTH_TOKEN": "t"}
    with pytest.raises(ConfigError, match="CORE_AUTH_TOKEN over plaintext.*CORE_TLS_CA_FILE"):
        Settings.from_env(env)
    assert Settings.from_env({**env, "CORE_TLS_CA_FILE": "/etc/ca.pem"}).core_tls_ca_file == "/etc/ca.pem"


@pytest.mark.parametrize(
    "addr", ["127.0.0.1:50051", "[::1]:50051", "localhost:50051", "127.0.0.1:1,127.0.0.2:2"]
)
def test_the_token_may_go_in_clear_to_a_loopback_core(addr: str):
    env = {"JWT_SIGNING_KEY": KEY, "CORE_GRPC_ADDR": addr, "CORE_AUTH_TOKEN": "t"}
    assert Settings.from_env(env).core_auth_token == "t"


@pytest.mark.parametrize("key", ["", "k", "k" * 31])
def test_a_jwt_signing_key_shorter_than_32_bytes_refuses_to_start_naming_it(key: str):
    with pytest.raises(ConfigError, match="JWT_SIGNING_KEY"):
        Settings.from_env({"JWT_SIGNING_KEY": key})
    with pytest.raises(ConfigError, match="JWT_SIGNING_KEY"):
        Settings(jwt_signing_key=key)


def test_tls_files_come_in_pairs():
    with pytest.raises(ConfigError):
        Settings(jwt_signing_key=KEY, tls_cert_file="c")


def test_absent_service_version_is_the_latest():
    assert resolve_version(None) == LATEST_VERSION == SUPPORTED_VERSIONS[-1]
    assert resolve_version(SUPPORTED_VERSIONS[0]) == SUPPORTED_VERSIONS[0]


def test_unknown_service_version_is_400():
    with pytest.raises(ApiError) as caught:
        resolve_version("1999-01-01")
    err = caught.value
    assert (err.http_status, err.code, err.param) == (400, "api_version_invalid", "Service-Version")
