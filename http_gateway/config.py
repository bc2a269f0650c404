"""Gateway settings, read from the environment once (the only module that reads env vars)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Sanic answers 413 above this many bytes; no API body comes near it.
REQUEST_MAX_SIZE = 1_000_000


MIN_JWT_KEY_BYTES = 32
"""An HS256 key shorter than the hash's 32 bytes can be guessed offline from one token (DESIGN §10.9)."""


class ConfigError(ValueError):
    """A setting is missing or malformed; the process must not start."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the gateway needs to run; frozen so a worker can never drift from its peers."""

    jwt_signing_key: str
    http_host: str = "127.0.0.1"
    http_port: int = 8000
    http_workers: int = 1
    core_grpc_addr: str = "127.0.0.1:50051"
    core_timeout: float = 10.0
    core_auth_token: str | None = None
    core_tls_ca_file: str | None = None
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_namespace: str = "pc"
    redis_sentinels: tuple[tuple[str, int], ...] = ()
    """REDIS_SENTINELS: ask these for the master of `redis_sentinel_service`; REDIS_URL then gives only
    the database index and credentials (docs/operations.md)."""
    redis_sentinel_service: str = ""
    public_base_url: str = ""
    checkout_base_url: str = ""
    dashboard_base_url: str = ""
    """DASHBOARD_BASE_URL: where the merchant dashboard's pages live ({dashboard_url}/dashboard)."""
    rate_limit_live: int = 100
    rate_limit_test: int = 25
    rate_limit_anonymous: int = 25
    """Per client address for requests without a valid credential; DESIGN §5a: the test rate."""
    api_key_cache_seconds: float = 5.0
    """How long a resolved API key is reused without asking the core (0: never); bounds how long a key
    revoked through another gateway keeps working here (http_gateway/pipeline/api_key_cache.py)."""
    max_core_calls: int = 64
    """GATEWAY_MAX_CORE_CALLS: core calls in flight per worker (0: no bound); past it a request waits in
    line, and past the line it is answered 503 with Retry-After (core_client/load_shedding.py)."""
    core_call_queue: int = 64
    """GATEWAY_CORE_CALL_QUEUE: requests per worker waiting for a core call slot; more are shed at once."""
    core_call_wait_seconds: float = 0.05
    """GATEWAY_CORE_CALL_WAIT_MS (milliseconds): the longest a request waits in that line before its 503."""
    tls_cert_file: str | None = None
    tls_key_file: str | None = None
    behind_tls_proxy: bool = False
    metrics_token: str | None = None
    """METRICS_TOKEN: a non-loopback scraper shows it as a Bearer token; without it GET /metrics answers
    loopback peers only (DESIGN §10.9)."""

    def __post_init__(self) -> None:
        # Defaults that depend on other fields: the gateway's own address.
        own = f"{'https' if self.tls_enabled else 'http'}://{self.http_host}:{self.http_port}"
        if not self.public_base_url:
            object.__setattr__(self, "public_base_url", own)
        if not self.checkout_base_url:
            object.__setattr__(self, "checkout_base_url", own)
        if not self.dashboard_base_url:
            object.__setattr__(self, "dashboard_base_url", own)
        object.__setattr__(self, "dashboard_base_url", self.dashboard_base_url.rstrip("/"))
        object.__setattr__(self, "public_base_url", self.public_base_url.rstrip("/"))
        object.__setattr__(self, "checkout_base_url", self.checkout_base_url.rstrip("/"))
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            raise ConfigError("TLS_CERT_FILE and TLS_KEY_FILE must be set together")
        core_target(self.core_grpc_addr)  # fail at start, not on the first request
        if len(self.jwt_signing_key.encode()) < MIN_JWT_KEY_BYTES:
            raise ConfigError(f"JWT_SIGNING_KEY must be at least {MIN_JWT_KEY_BYTES} bytes (DESIGN §10.9)")
        if self.core_auth_token and not self.core_tls_ca_file:
            remote = [a for a in core_addresses(self.core_grpc_addr) if not _is_loopback(_address_host(a))]
            if remote:
                # The token (and every card number) would cross the network in clear (DESIGN §10.9).
                raise ConfigError(
                    f"refusing to send CORE_AUTH_TOKEN over plaintext to non-loopback core {remote[0]!r}: "
                    "set CORE_TLS_CA_FILE (the core serves TLS off loopback), or reach the core on 127.0.0.1"
                )
        if self.max_core_calls < 0 or self.core_call_queue < 0 or self.core_call_wait_seconds < 0:
            raise ConfigError(
                "GATEWAY_MAX_CORE_CALLS, GATEWAY_CORE_CALL_QUEUE and GATEWAY_CORE_CALL_WAIT_MS "
                "must not be negative"
            )
        if bool(self.redis_sentinels) != bool(self.redis_sentinel_service):
            raise ConfigError("REDIS_SENTINELS and REDIS_SENTINEL_SERVICE must be set together")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from `env` (default: os.environ); raises ConfigError on bad values."""
        e = os.environ if env is None else env
        key = e.get("JWT_SIGNING_KEY", "")
        if not key:
            raise ConfigError("JWT_SIGNING_KEY is required")
        return cls(
            jwt_signing_key=key,
            http_host=e.get("HTTP_HOST", "127.0.0.1"),
            http_port=_int(e, "HTTP_PORT", 8000),
            http_workers=_int(e, "HTTP_WORKERS", 1),
            core_grpc_addr=e.get("CORE_GRPC_ADDR", "127.0.0.1:50051"),
            core_timeout=_float(e, "CORE_TIMEOUT_SECONDS", 10.0),
            core_auth_token=e.get("CORE_AUTH_TOKEN") or None,
            core_tls_ca_file=e.get("CORE_TLS_CA_FILE") or None,
            redis_url=e.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            redis_namespace=e.get("REDIS_NAMESPACE", "pc"),
            redis_sentinels=sentinel_addresses(e.get("REDIS_SENTINELS", "")),
            redis_sentinel_service=e.get("REDIS_SENTINEL_SERVICE", "").strip(),
            public_base_url=e.get("PUBLIC_BASE_URL", ""),
            checkout_base_url=e.get("CHECKOUT_BASE_URL", ""),
            dashboard_base_url=e.get("DASHBOARD_BASE_URL", ""),
            rate_limit_live=_int(e, "RATE_LIMIT_LIVE", 100),
            rate_limit_test=_int(e, "RATE_LIMIT_TEST", 25),
            rate_limit_anonymous=_int(e, "RATE_LIMIT_ANONYMOUS", _int(e, "RATE_LIMIT_TEST", 25)),
            api_key_cache_seconds=_float(e, "API_KEY_CACHE_SECONDS", 5.0),
            max_core_calls=_int(e, "GATEWAY_MAX_CORE_CALLS", 64),
            core_call_queue=_int(e, "GATEWAY_CORE_CALL_QUEUE", 64),
            core_call_wait_seconds=_float(e, "GATEWAY_CORE_CALL_WAIT_MS", 50.0) / 1000.0,
            tls_cert_file=e.get("TLS_CERT_FILE") or None,
            tls_key_file=e.get("TLS_KEY_FILE") or None,
            behind_tls_proxy=e.get("BEHIND_TLS_PROXY", "") == "1",
            metrics_token=e.get("METRICS_TOKEN") or None,
        )

    @property
    def tls_enabled(self) -> bool:
        return bool(self.tls_cert_file and self.tls_key_file)

    def check_bind_allowed(self) -> None:
        """Spec: HTTPS only. Plain HTTP is allowed on loopback (development) or behind a TLS proxy."""
        if self.tls_enabled or self.behind_tls_proxy or _is_loopback(self.http_host):
            return
        raise ConfigError(
            f"refusing to serve plain HTTP on non-loopback {self.http_host!r}: "
            "set TLS_CERT_FILE/TLS_KEY_FILE, or BEHIND_TLS_PROXY=1 when a TLS proxy fronts the gateway"
        )

    def as_sanic_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "REQUEST_MAX_SIZE": REQUEST_MAX_SIZE,
            "FALLBACK_ERROR_FORMAT": "json",
            "NOISY_EXCEPTIONS": False,
            "ACCESS_LOG": False,
        }
        if self.behind_tls_proxy:
            # The proxy appends the client address; trust exactly that one hop for per-address limits.
            config["PROXIES_COUNT"] = 1
        return config


def core_addresses(addr: str) -> list[str]:
    """The entries of CORE_GRPC_ADDR, in order (one, or a comma-separated list)."""
    return [p.strip() for p in addr.split(",") if p.strip()]


def core_target(addr: str) -> tuple[str, list[tuple[str, Any]]]:
    """gRPC target and channel options for CORE_GRPC_ADDR (one address, or a list balanced round-robin).

    gRPC's `ipv4:`/`ipv6:` schemes take several literal addresses in one target; hostnames cannot be
    listed that way, so a list of names is refused (use DNS with several A records instead).
    """
    parts = core_addresses(addr)
    if not parts:
        raise ConfigError("CORE_GRPC_ADDR is empty")
    if len(parts) == 1:
        return parts[0], []
    families: set[int] = set()
    for part in parts:
        host, _, port = part.rpartition(":")
        try:
            families.add(ipaddress.ip_address(host.strip("[]")).version)
            int(port)
        except ValueError as exc:
            raise ConfigError(f"CORE_GRPC_ADDR list entries must be ip:port, got {part!r}") from exc
    if len(families) != 1:
        raise ConfigError("CORE_GRPC_ADDR must not mix IPv4 and IPv6 addresses")
    scheme = "ipv4" if families == {4} else "ipv6"
    options: list[tuple[str, Any]] = [
        ("grpc.service_config", '{"loadBalancingConfig": [{"round_robin": {}}]}'),
    ]
    return f"{scheme}:{','.join(parts)}", options


def sentinel_addresses(value: str) -> tuple[tuple[str, int], ...]:
    """REDIS_SENTINELS: `host:port,host:port,…` (an IPv6 host in brackets); empty: no Sentinel."""
    addresses = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        host, _, port = part.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"REDIS_SENTINELS entries must be host:port, got {part!r}")
        addresses.append((host.strip("[]"), int(port)))
    return tuple(addresses)


def _address_host(address: str) -> str:
    """The host of one CORE_GRPC_ADDR entry (`host:port`, `[v6]:port`, or a gRPC target like
    `dns:///host:port`); a name other than localhost counts as remote."""
    target = address.rpartition("///")[2] if "///" in address else address
    return target.rpartition(":")[0].strip("[]") if ":" in target else target


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from exc
