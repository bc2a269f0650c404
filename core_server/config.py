"""Settings of the core process, read from the environment in one place."""

from __future__ import annotations

import base64
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

MIN_JWT_KEY_BYTES = 32
"""An HS256 key shorter than the hash's 32 bytes can be guessed offline from one token (DESIGN §10.9)."""


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
    redis_pool_max: int
    auth_token: str | None
    process_name: str
    # Older master keys, still accepted for opening values sealed before a rotation (docs/security.md).
    data_encryption_keys: tuple[bytes, ...] = ()
    # Keys the idempotency and card fingerprints (keyed hashes, compared, never opened); pinned across a
    # rotation so stored fingerprints keep matching. None: DATA_ENCRYPTION_KEY.
    data_fingerprint_key: bytes | None = None
    webhook_concurrency: int = 32
    webhook_endpoint_concurrency: int = 8
    webhook_merchant_concurrency: int = 16
    # DESIGN §10.9: free slots a merchant's second and further attempts never take, kept for merchants
    # with nothing in flight (WEBHOOK_RESERVED_SLOTS; None: a quarter of WEBHOOK_CONCURRENCY).
    webhook_reserved_slots: int | None = None
    event_retention_seconds: float = 30 * 86400.0
    retention_interval_seconds: float = 600.0
    webhook_dns_timeout_seconds: float = 3.0
    webhook_timeout_seconds: float = 10.0
    webhook_lease_seconds: float = 60.0
    webhook_poll_seconds: float = 5.0
    # Attempts a core's dispatcher starts per turn of its event loop (WEBHOOK_STARTS_PER_TURN): requests
    # ready meanwhile run between two groups, so a full claim never runs ahead of the request path.
    webhook_starts_per_turn: int = 4
    # How long a dispatcher's wake-up waits before claiming, and a finished attempt before its record, so
    # those few ms go in one statement each (WEBHOOK_GATHER_SECONDS).
    webhook_gather_seconds: float = 0.005
    # Where a core's webhook dispatcher runs (WEBHOOK_DISPATCH): "process", a child process the core starts
    # and supervises (its own interpreter, so deliveries do not queue behind the request path's turns), or
    # "inline", a task on the core's own event loop (platforms without subprocesses; tests that drive
    # the dispatcher themselves).
    webhook_dispatch: str = "process"
    # `payconnect listen` streams (DESIGN §10.6): how often an open stream reads the event log, and the
    # longest quiet stretch before a keep-alive.
    cli_stream_poll_seconds: float = 0.5
    cli_stream_keepalive_seconds: float = 15.0
    metrics_addr: str | None = None
    db_pool_timeout_seconds: float = 5.0
    # Unary RPCs running at once; more are refused at once, RESOURCE_EXHAUSTED (rpc/load_shedding.py).
    # 0: no bound. Health checks and streams are not counted.
    max_in_flight_rpcs: int = 128
    idempotency_claim_seconds: float = 60.0
    shutdown_grace_seconds: float = 8.0
    db_statement_timeout_seconds: float = 10.0
    db_idle_in_transaction_timeout_seconds: float = 15.0
    db_keepalive_idle_seconds: int = 5
    core_heartbeat_seconds: float = 1.0
    core_heartbeat_lapse_seconds: float = 3.0
    login_kdf_workers: int = 2
    login_kdf_queue: int = 8
    # DESIGN §10.9: one client address's share of the KDF pool (LOGIN_KDF_PER_ADDRESS; None: a quarter
    # of LOGIN_KDF_WORKERS + LOGIN_KDF_QUEUE).
    login_kdf_per_address: int | None = None
    tls_cert_file: str | None = None
    tls_key_file: str | None = None
    webhook_allow_private_targets: bool = False
    # DESIGN §9: the billing run is due hourly (a sandbox clock advance runs it at once for its merchant).
    billing_interval_seconds: float = 3600.0
    # Subscriptions one core bills at once (BILLING_PARALLEL): each is a chain of round trips, so the run's
    # rate grows with them until the core or the database is busy; each holds a pool connection only
    # while a statement runs.
    billing_parallel: int = 16
    # Where the customer portal's pages are served (DESIGN §9); empty: the checkout base URL.
    portal_base_url: str = ""
    # How long a batch claimed by one core's sweep (expiry, authorizations, billing, payouts, retention)
    # is passed over by the others while that core still beats (a dead core's claims go with its
    # heartbeat); 5 minutes by default.
    job_claim_seconds: float = 300.0
    # Production topology (docs/operations.md): "pgbouncer" when DATABASE_URL reaches PostgreSQL through
    # PgBouncer in transaction mode; LISTEN then goes direct, to DATABASE_LISTEN_URL.
    database_pooler: str = ""
    database_listen_url: str = ""
    # Redis Sentinel: the master of `redis_sentinel_service` is asked of these (host, port) pairs, and
    # REDIS_URL keeps only its database index and credentials.
    redis_sentinels: tuple[tuple[str, int], ...] = ()
    redis_sentinel_service: str = ""

    def __post_init__(self) -> None:
        if self.webhook_concurrency < 1 or self.webhook_endpoint_concurrency < 1:
            raise ConfigError("WEBHOOK_CONCURRENCY and WEBHOOK_ENDPOINT_CONCURRENCY must be at least 1")
        if self.webhook_merchant_concurrency < 1:
            raise ConfigError("WEBHOOK_MERCHANT_CONCURRENCY must be at least 1")
        if self.webhook_starts_per_turn < 1:
            raise ConfigError("WEBHOOK_STARTS_PER_TURN must be at least 1")
        if not 0 <= self.webhook_gather_seconds <= 1:
            raise ConfigError("WEBHOOK_GATHER_SECONDS must be between 0 and 1")
        if self.webhook_reserved_slots is not None and self.webhook_reserved_slots < 0:
            # Above WEBHOOK_CONCURRENCY - 1 it is clamped there: a merchant always gets its first slot.
            raise ConfigError("WEBHOOK_RESERVED_SLOTS must be at least 0")
        if self.webhook_dispatch not in WEBHOOK_DISPATCH_MODES:
            raise ConfigError(f"WEBHOOK_DISPATCH must be one of {', '.join(WEBHOOK_DISPATCH_MODES)}")
        if self.webhook_dns_timeout_seconds <= 0:
            raise ConfigError("WEBHOOK_DNS_TIMEOUT_SECONDS must be positive")
        if self.event_retention_seconds <= 0 or self.retention_interval_seconds <= 0:
            raise ConfigError(
                "EVENT_RETENTION_DAYS (or EVENT_RETENTION_SECONDS) and RETENTION_INTERVAL_SECONDS "
                "must be positive"
            )
        if self.webhook_lease_seconds <= self.webhook_timeout_seconds:
            # A lease shorter than an attempt would let a second core send the same pair meanwhile.
            raise ConfigError("WEBHOOK_LEASE_SECONDS must exceed WEBHOOK_TIMEOUT_SECONDS")
        if self.login_kdf_per_address is not None and self.login_kdf_per_address < 1:
            raise ConfigError("LOGIN_KDF_PER_ADDRESS must be at least 1")
        if self.login_kdf_workers < 1 or self.login_kdf_queue < 0:
            raise ConfigError("LOGIN_KDF_WORKERS must be at least 1 and LOGIN_KDF_QUEUE at least 0")
        if self.max_in_flight_rpcs < 0:
            raise ConfigError("CORE_MAX_IN_FLIGHT_RPCS must not be negative (0: no bound)")
        if self.job_claim_seconds < 1:
            # Less would lapse while a batch still runs.
            raise ConfigError("JOB_CLAIM_SECONDS must be at least 1")
        if self.idempotency_claim_seconds <= self.ask_timeout_seconds:
            # A claim that lapses while its request may still run would let a retry run it a second time.
            raise ConfigError("IDEMPOTENCY_CLAIM_SECONDS must exceed ASK_TIMEOUT_SECONDS")
        self._check_claim_timers()
        self._check_topology()
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            raise ConfigError("CORE_TLS_CERT_FILE and CORE_TLS_KEY_FILE must be set together")
        for name, path in (
            ("CORE_TLS_CERT_FILE", self.tls_cert_file),
            ("CORE_TLS_KEY_FILE", self.tls_key_file),
        ):
            if path and not Path(path).is_file():
                raise ConfigError(f"{name} names no readable file: {path}")
        if not self.auth_token and not _is_loopback_bind(self.grpc_addr):
            # Without the token any host that reaches the port could act as any merchant: calls carry
            # the merchant and environment, and the core trusts them (DESIGN §1).
            raise ConfigError(
                f"refusing to serve the core on non-loopback {self.grpc_addr!r} without CORE_AUTH_TOKEN: "
                "set CORE_AUTH_TOKEN (and CORE_TLS_CERT_FILE/CORE_TLS_KEY_FILE), or bind 127.0.0.1"
            )
        if not self.tls_enabled and not _is_loopback_bind(self.grpc_addr):
            # Off loopback, plaintext gRPC would carry the token and card data in clear (DESIGN §10.9).
            raise ConfigError(
                f"refusing to serve the core on non-loopback {self.grpc_addr!r} without TLS: "
                "set CORE_TLS_CERT_FILE and CORE_TLS_KEY_FILE, or bind 127.0.0.1"
            )
        if len(self.jwt_signing_key.encode()) < MIN_JWT_KEY_BYTES:
            raise ConfigError(f"JWT_SIGNING_KEY must be at least {MIN_JWT_KEY_BYTES} bytes (DESIGN §10.9)")

    def _check_claim_timers(self) -> None:
        """A statement or transaction that could outlive its Idempotency-Key claim could commit after a
        retry took the claim over; a heartbeat lapse shorter than two beats would call a live core dead."""
        claim = self.idempotency_claim_seconds
        if not 0 < self.db_statement_timeout_seconds < claim:
            raise ConfigError(
                "DB_STATEMENT_TIMEOUT_SECONDS must be above 0 and below IDEMPOTENCY_CLAIM_SECONDS"
            )
        if not 0 < self.db_idle_in_transaction_timeout_seconds < claim:
            raise ConfigError(
                "DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS must be above 0 and below IDEMPOTENCY_CLAIM_SECONDS"
            )
        if self.db_keepalive_idle_seconds < 1:
            raise ConfigError("DB_KEEPALIVE_IDLE_SECONDS must be at least 1")
        if self.core_heartbeat_seconds <= 0:
            raise ConfigError("CORE_HEARTBEAT_SECONDS must be above 0")
        if self.billing_parallel < 1:
            raise ConfigError("BILLING_PARALLEL must be at least 1")
        if not 2 * self.core_heartbeat_seconds <= self.core_heartbeat_lapse_seconds < claim:
            raise ConfigError(
                "CORE_HEARTBEAT_LAPSE_SECONDS must be at least twice CORE_HEARTBEAT_SECONDS and below "
                "IDEMPOTENCY_CLAIM_SECONDS"
            )

    def _check_topology(self) -> None:
        if self.database_pooler not in POOLERS:
            raise ConfigError(f"DATABASE_POOLER must be empty or pgbouncer, got {self.database_pooler!r}")
        if self.database_pooler and not self.database_listen_url:
            # A transaction pooler hands the LISTEN's server connection to other clients after its
            # transaction: the notifications would go nowhere. LISTEN needs a session of its own.
            raise ConfigError("DATABASE_POOLER=pgbouncer needs DATABASE_LISTEN_URL (direct to PostgreSQL)")
        if bool(self.redis_sentinels) != bool(self.redis_sentinel_service):
            raise ConfigError("REDIS_SENTINELS and REDIS_SENTINEL_SERVICE must be set together")

    @property
    def listen_url(self) -> str:
        """Where LISTEN connects: DATABASE_LISTEN_URL, else DATABASE_URL itself."""
        return self.database_listen_url or self.database_url

    @property
    def fingerprint_master(self) -> bytes:
        """The master of the fingerprint keys: DATA_FINGERPRINT_KEY, else DATA_ENCRYPTION_KEY."""
        return self.data_fingerprint_key or self.data_encryption_key

    @property
    def tls_enabled(self) -> bool:
        return bool(self.tls_cert_file and self.tls_key_file)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)

        def required(name: str) -> str:
            value = e.get(name, "").strip()
            if not value:
                raise ConfigError(f"{name} must be set")
            return value

        data_key = _master_key("DATA_ENCRYPTION_KEY", required("DATA_ENCRYPTION_KEY"))
        older_keys = tuple(
            _master_key("DATA_ENCRYPTION_KEYS", part.strip())
            for part in e.get("DATA_ENCRYPTION_KEYS", "").split(",")
            if part.strip()
        )
        fingerprint_b64 = e.get("DATA_FINGERPRINT_KEY", "").strip()
        fingerprint_key = _master_key("DATA_FINGERPRINT_KEY", fingerprint_b64) if fingerprint_b64 else None
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
            data_encryption_keys=older_keys,
            data_fingerprint_key=fingerprint_key,
            checkout_base_url=e.get("CHECKOUT_BASE_URL", public).rstrip("/"),
            portal_base_url=e.get("PORTAL_BASE_URL", "").rstrip("/"),
            lease_ttl_ms=int(e.get("LEASE_TTL_MS", "10000")),
            lease_wait_seconds=float(e.get("LEASE_WAIT_SECONDS", "5")),
            actor_idle_seconds=float(e.get("ACTOR_IDLE_SECONDS", "0.2")),
            ask_timeout_seconds=float(e.get("ASK_TIMEOUT_SECONDS", "8")),
            expiry_interval_seconds=float(e.get("EXPIRY_INTERVAL_SECONDS", "300")),
            authorization_interval_seconds=float(e.get("AUTHORIZATION_INTERVAL_SECONDS", "1")),
            db_pool_max=int(e.get("DB_POOL_MAX", "20")),
            redis_pool_max=int(e.get("REDIS_POOL_MAX", "128")),
            auth_token=e.get("CORE_AUTH_TOKEN") or None,
            process_name=f"core-{socket.gethostname()}-{os.getpid()}",
            # Delivery tuning: the spec fixes the 10 s time-out; tests shorten it for hanging receivers.
            webhook_concurrency=int(e.get("WEBHOOK_CONCURRENCY", "32")),
            webhook_endpoint_concurrency=int(e.get("WEBHOOK_ENDPOINT_CONCURRENCY", "8")),
            # By default one merchant may hold half of a process's delivery slots, never all of them.
            webhook_merchant_concurrency=int(
                e.get("WEBHOOK_MERCHANT_CONCURRENCY")
                or str(max(1, int(e.get("WEBHOOK_CONCURRENCY", "32")) // 2))
            ),
            webhook_reserved_slots=(
                int(e["WEBHOOK_RESERVED_SLOTS"]) if e.get("WEBHOOK_RESERVED_SLOTS") else None
            ),
            # Retention (docs/webhooks.md); EVENT_RETENTION_SECONDS overrides the days for tests and soaks.
            event_retention_seconds=float(
                e.get("EVENT_RETENTION_SECONDS") or float(e.get("EVENT_RETENTION_DAYS", "30")) * 86400
            ),
            retention_interval_seconds=float(e.get("RETENTION_INTERVAL_SECONDS", "600")),
            webhook_dns_timeout_seconds=float(e.get("WEBHOOK_DNS_TIMEOUT_SECONDS", "3")),
            webhook_timeout_seconds=float(e.get("WEBHOOK_TIMEOUT_SECONDS", "10")),
            webhook_lease_seconds=float(e.get("WEBHOOK_LEASE_SECONDS", "60")),
            webhook_poll_seconds=float(e.get("WEBHOOK_POLL_SECONDS", "5")),
            webhook_starts_per_turn=int(e.get("WEBHOOK_STARTS_PER_TURN", "4")),
            webhook_gather_seconds=float(e.get("WEBHOOK_GATHER_SECONDS", "0.005")),
            webhook_dispatch=e.get("WEBHOOK_DISPATCH", "process").strip().lower() or "process",
            cli_stream_poll_seconds=float(e.get("CLI_STREAM_POLL_SECONDS", "0.5")),
            cli_stream_keepalive_seconds=float(e.get("CLI_STREAM_KEEPALIVE_SECONDS", "15")),
            metrics_addr=_metrics_addr(e.get("CORE_METRICS_ADDR", ""), grpc_addr),
            # Failure timers (docs/running.md); tests shorten them to keep fault tests fast.
            db_pool_timeout_seconds=float(e.get("DB_POOL_TIMEOUT_SECONDS", "5")),
            max_in_flight_rpcs=_integer(e, "CORE_MAX_IN_FLIGHT_RPCS", "128"),
            idempotency_claim_seconds=float(e.get("IDEMPOTENCY_CLAIM_SECONDS", "60")),
            shutdown_grace_seconds=float(e.get("SHUTDOWN_GRACE_SECONDS", "8")),
            # PostgreSQL time-outs and keepalives, and the heartbeat that claims follow (README).
            db_statement_timeout_seconds=float(e.get("DB_STATEMENT_TIMEOUT_SECONDS", "10")),
            db_idle_in_transaction_timeout_seconds=float(
                e.get("DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS", "15")
            ),
            db_keepalive_idle_seconds=_integer(e, "DB_KEEPALIVE_IDLE_SECONDS", "5"),
            core_heartbeat_seconds=float(e.get("CORE_HEARTBEAT_SECONDS", "1")),
            core_heartbeat_lapse_seconds=float(e.get("CORE_HEARTBEAT_LAPSE_SECONDS", "3")),
            # Password hashing (sign-up, login) runs in this many threads with this many waiting at most.
            login_kdf_workers=_integer(e, "LOGIN_KDF_WORKERS", "2"),
            login_kdf_queue=_integer(e, "LOGIN_KDF_QUEUE", "8"),
            login_kdf_per_address=(
                _integer(e, "LOGIN_KDF_PER_ADDRESS", "1") if e.get("LOGIN_KDF_PER_ADDRESS") else None
            ),
            tls_cert_file=e.get("CORE_TLS_CERT_FILE", "").strip() or None,
            tls_key_file=e.get("CORE_TLS_KEY_FILE", "").strip() or None,
            webhook_allow_private_targets=_flag(e, "WEBHOOK_ALLOW_PRIVATE_TARGETS"),
            billing_interval_seconds=float(e.get("BILLING_INTERVAL_SECONDS", "3600")),
            billing_parallel=_integer(e, "BILLING_PARALLEL", "16"),
            # BILLING_CLAIM_SECONDS: this setting's name before every sweep shared the billing run's claims.
            job_claim_seconds=float(e.get("JOB_CLAIM_SECONDS", e.get("BILLING_CLAIM_SECONDS", "300"))),
            database_pooler=e.get("DATABASE_POOLER", "").strip().lower(),
            database_listen_url=e.get("DATABASE_LISTEN_URL", "").strip(),
            redis_sentinels=sentinel_addresses(e.get("REDIS_SENTINELS", "")),
            redis_sentinel_service=e.get("REDIS_SENTINEL_SERVICE", "").strip(),
        )


POOLERS = frozenset({"", "pgbouncer"})
WEBHOOK_DISPATCH_MODES = ("process", "inline")
"""DATABASE_POOLER's values: none (direct to PostgreSQL) or PgBouncer in transaction mode."""


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


def _flag(env: dict[str, str], name: str) -> bool:
    """ "1" on, "0" or unset off; anything else is a typo that must not silently mean either."""
    value = env.get(name, "").strip()
    if value not in ("", "0", "1"):
        raise ConfigError(f"{name} must be 1 or 0, got {value!r}")
    return value == "1"


def _is_loopback_bind(addr: str) -> bool:
    """127.0.0.0/8, ::1 or localhost; an empty host or 0.0.0.0/[::] listens on every interface."""
    host = addr.strip().rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _integer(env: dict[str, str], name: str, default: str) -> int:
    value = env.get(name, "").strip() or default
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, not {value!r}") from None


def _metrics_addr(configured: str, grpc_addr: str) -> str | None:
    """CORE_METRICS_ADDR, "off" for none; by default the gRPC port + 1000, so `make cluster` cores never
    clash."""
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


def _master_key(name: str, value: str) -> bytes:
    """A base64 AES-256 master key; DATA_ENCRYPTION_KEYS holds several, comma-separated."""
    try:
        key = base64.b64decode(value, validate=True)
    except ValueError as exc:
        raise ConfigError(f"{name} must be base64") from exc
    if len(key) != 32:
        raise ConfigError(f"{name} must decode to 32 bytes (AES-256-GCM)")
    return key
