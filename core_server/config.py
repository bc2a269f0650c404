"""Settings of the core process, read from the environment in one place."""

from __future__ import annotations

import base64
import os
import socket
from dataclasses import dataclass


class ConfigError(RuntimeError):
    """A required setting is missing or malformed; the process refuses to start."""


@dataclass(frozen=True, slots=True)
class Settings:
    grpc_addr: str
    database_url: str
    redis_url: str
    redis_namespace: str
    jwt_signing_key: str
    data_encryption_key: bytes
    checkout_base_url: str
    lease_ttl_ms: int
    lease_wait_seconds: float
    actor_idle_seconds: float
    ask_timeout_seconds: float
    expiry_interval_seconds: float
    authorization_interval_seconds: float
    db_pool_max: int
    auth_token: str | None
    process_name: str
    webhook_concurrency: int = 32
    webhook_endpoint_concurrency: int = 8
    webhook_timeout_seconds: float = 10.0
    webhook_lease_seconds: float = 60.0
    webhook_poll_seconds: float = 5.0
    metrics_addr: str | None = None
    db_pool_timeout_seconds: float = 5.0
    idempotency_claim_seconds: float = 60.0
    shutdown_grace_seconds: float = 8.0

    def __post_init__(self) -> None:
        if self.webhook_concurrency < 1 or self.webhook_endpoint_concurrency < 1:
            raise ConfigError("WEBHOOK_CONCURRENCY and WEBHOOK_ENDPOINT_CONCURRENCY must be at least 1")
        if self.webhook_lease_seconds <= self.webhook_timeout_seconds:
            # A lease shorter than an attempt would let a second core send the same pair meanwhile.
            raise ConfigError("WEBHOOK_LEASE_SECONDS must exceed WEBHOOK_TIMEOUT_SECONDS")
        if self.idempotency_claim_seconds <= self.ask_timeout_seconds:
            # A claim that lapses while its request may still run would let a retry run it a second time.
            raise ConfigError("IDEMPOTENCY_CLAIM_SECONDS must exceed ASK_TIMEOUT_SECONDS")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)

        def required(name: str) -> str:
            value = e.get(name, "").strip()
            if not value:
                raise ConfigError(f"{name} must be set")
            return value

        key_b64 = required("DATA_ENCRYPTION_KEY")
        try:
            data_key = base64.b64decode(key_b64, validate=True)
        except ValueError as exc:
            raise ConfigError("DATA_ENCRYPTION_KEY must be base64") from exc
        if len(data_key) != 32:
            raise ConfigError("DATA_ENCRYPTION_KEY must decode to 32 bytes (AES-256-GCM)")
        http_host = e.get("HTTP_HOST", "127.0.0.1")
        http_port = e.get("HTTP_PORT", "8000")
        public = e.get("PUBLIC_BASE_URL", f"http://{http_host}:{http_port}")
        grpc_addr = e.get("CORE_GRPC_ADDR", "127.0.0.1:50051")
        return cls(
            grpc_addr=grpc_addr,
            database_url=required("DATABASE_URL"),
            redis_url=e.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            redis_namespace=e.get("REDIS_NAMESPACE", "pc"),
            jwt_signing_key=required("JWT_SIGNING_KEY"),
            data_encryption_key=data_key,
            checkout_base_url=e.get("CHECKOUT_BASE_URL", public).rstrip("/"),
            lease_ttl_ms=int(e.get("LEASE_TTL_MS", "10000")),
            lease_wait_seconds=float(e.get("LEASE_WAIT_SECONDS", "5")),
            actor_idle_seconds=float(e.get("ACTOR_IDLE_SECONDS", "0.2")),
            ask_timeout_seconds=float(e.get("ASK_TIMEOUT_SECONDS", "8")),
            expiry_interval_seconds=float(e.get("EXPIRY_INTERVAL_SECONDS", "300")),
            authorization_interval_seconds=float(e.get("AUTHORIZATION_INTERVAL_SECONDS", "1")),
            db_pool_max=int(e.get("DB_POOL_MAX", "20")),
            auth_token=e.get("CORE_AUTH_TOKEN") or None,
            process_name=f"core-{socket.gethostname()}-{os.getpid()}",
            # Delivery tuning: the spec fixes the 10 s time-out; tests shorten it for hanging receivers.
            webhook_concurrency=int(e.get("WEBHOOK_CONCURRENCY", "32")),
            webhook_endpoint_concurrency=int(e.get("WEBHOOK_ENDPOINT_CONCURRENCY", "8")),
            webhook_timeout_seconds=float(e.get("WEBHOOK_TIMEOUT_SECONDS", "10")),
            webhook_lease_seconds=float(e.get("WEBHOOK_LEASE_SECONDS", "60")),
            webhook_poll_seconds=float(e.get("WEBHOOK_POLL_SECONDS", "5")),
            metrics_addr=_metrics_addr(e.get("CORE_METRICS_ADDR", ""), grpc_addr),
            # Failure timers (README, Failure behaviour); tests shorten them to keep fault tests fast.
            db_pool_timeout_seconds=float(e.get("DB_POOL_TIMEOUT_SECONDS", "5")),
            idempotency_claim_seconds=float(e.get("IDEMPOTENCY_CLAIM_SECONDS", "60")),
            shutdown_grace_seconds=float(e.get("SHUTDOWN_GRACE_SECONDS", "8")),
        )


def _metrics_addr(configured: str, grpc_addr: str) -> str | None:
    """CORE_METRICS_ADDR, "off" for none; by default the gRPC port + 1000, so `make cluster` cores never clash."""
    value = configured.strip()
    if value.lower() == "off":
        return None
    if value:
        return value
    host, _, port = grpc_addr.rpartition(":")
    metrics_port = int(port) + 1000
    if metrics_port > 65535:
        raise ConfigError(f"set CORE_METRICS_ADDR: the default (gRPC port + 1000) is {metrics_port}")
    return f"{host.strip('[]') or '127.0.0.1'}:{metrics_port}"
