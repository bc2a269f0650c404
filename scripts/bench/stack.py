"""The system under test: a scratch database, N cores and M gateways, and the bench merchants.

Processes are started with the test-suite machinery (tests/support/processes.py: free loopback ports,
readiness probes, one log file each); PostgreSQL and Redis are DATABASE_URL / REDIS_URL when set,
else the embedded dev stack (tests/support/services.py), which is stopped again if this run started it.
Each run gets its own database (`pc_bench_<hex>`, dropped at the end unless kept) and Redis namespace.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from tests.support.processes import RunningProcess, free_port, start_core, start_gateway
from tests.support.services import (
    BaseServices,
    purge_redis_namespace,
    start_base_services,
    stop_base_services,
    with_database,
)

API = "/api/v1/connect"
UNLIMITED = "1000000000"
CARD_OK = {"card_number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"}


@dataclass
class BenchStack:
    services: BaseServices
    admin_dsn: str
    database_dsn: str
    redis_url: str
    namespace: str
    cores: list[RunningProcess] = field(default_factory=list)
    gateways: list[RunningProcess] = field(default_factory=list)

    @property
    def gateway_urls(self) -> list[str]:
        return [g.base_url for g in self.gateways]

    def database_for(self, name: str) -> str:
        return with_database(self.admin_dsn, name)

    def processes(self) -> list[RunningProcess]:
        return [*self.cores, *self.gateways]

    def named(self) -> dict[str, RunningProcess]:
        """`core`/`gateway`, or `core-1`, `gateway-2`, … when there are several."""
        several = len(self.cores) > 1 or len(self.gateways) > 1
        out: dict[str, RunningProcess] = {}
        for kind, group in (("core", self.cores), ("gateway", self.gateways)):
            for i, process in enumerate(group, start=1):
                out[f"{kind}-{i}" if several else kind] = process
        return out


def start_services() -> tuple[BaseServices, str]:
    """The servers (DATABASE_URL / REDIS_URL, else embedded) and an admin DSN on their `postgres` database."""
    services = start_base_services()
    return services, with_database(services.env["DATABASE_URL"], "postgres")


def stop_services(services: BaseServices) -> None:
    """Stops the embedded servers only if this run started them."""
    stop_base_services(services)


def create_database(admin_dsn: str) -> str:
    name = f"pc_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return with_database(admin_dsn, name)


def drop_database(admin_dsn: str, dsn: str) -> None:
    name = conninfo_to_dict(dsn)["dbname"]
    if not str(name).startswith("pc_bench_"):
        raise ValueError(f"refusing to drop {name!r}: not a bench database")
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(str(name))))


def process_env(database_dsn: str, redis_url: str, namespace: str, log_level: str) -> dict[str, str]:
    """Core and gateway settings for the bench: fresh secrets, rate limits out of the way."""
    return {
        "DATABASE_URL": database_dsn,
        "REDIS_URL": redis_url,
        "REDIS_NAMESPACE": namespace,
        "JWT_SIGNING_KEY": secrets.token_urlsafe(48),
        "DATA_ENCRYPTION_KEY": base64.b64encode(secrets.token_bytes(32)).decode("ascii"),
        # The load generator is one client address and one merchant: limits would measure themselves.
        "RATE_LIMIT_TEST": UNLIMITED,
        "RATE_LIMIT_LIVE": UNLIMITED,
        "RATE_LIMIT_ANONYMOUS": UNLIMITED,
        "LOG_LEVEL": log_level,
    }


def start_stack(
    services: BaseServices, admin_dsn: str, cores: int, gateways: int, *, log_level: str = "INFO"
) -> BenchStack:
    """A fresh database, then the cores and the gateways (each balancing over every core)."""
    dsn = create_database(admin_dsn)
    redis_url = services.env["REDIS_URL"]
    stack = BenchStack(services, admin_dsn, dsn, redis_url, f"pcbench{secrets.token_hex(4)}")
    env = process_env(dsn, redis_url, stack.namespace, log_level)
    try:
        gateway_ports = [free_port() for _ in range(gateways)]
        checkout = f"http://127.0.0.1:{gateway_ports[0]}"
        core_env = {**env, "CHECKOUT_BASE_URL": checkout, "PUBLIC_BASE_URL": checkout}
        for _ in range(cores):
            stack.cores.append(start_core(core_env, timeout=60))
        addrs = [c.address for c in stack.cores]
        for port in gateway_ports:
            stack.gateways.append(start_gateway(env, addrs, port=port, timeout=60))
    except BaseException:
        stop_stack(stack, keep_database=False)
        raise
    return stack


def stop_stack(stack: BenchStack, *, keep_database: bool) -> None:
    """Stop the processes (gateways first), drop the database and the Redis keys of this run."""
    for process in [*stack.gateways, *stack.cores]:
        process.stop()
    purge_redis_namespace(stack.redis_url, stack.namespace)
    if not keep_database:
        drop_database(stack.admin_dsn, stack.database_dsn)


@dataclass(frozen=True, slots=True)
class BenchMerchant:
    merchant_id: str
    secret_key: str


def sign_up(base_url: str, label: str) -> BenchMerchant:
    """A merchant with a test secret key, through the public API like any integrator."""
    email = f"{label}-{uuid.uuid4().hex[:10]}@bench.example"
    with httpx.Client(base_url=base_url, timeout=30.0) as http:
        created = http.post(
            "/api/v1/merchants",
            json={"email": email, "password": "bench password 1", "business_name": f"Bench {label}"},
        )
        created.raise_for_status()
        token = http.post("/api/v1/auth/token", json={"email": email, "password": "bench password 1"})
        token.raise_for_status()
        key = http.post(
            f"{API}/keys",
            json={"name": "bench", "environment": "test"},
            headers={"Authorization": f"Bearer {token.json()['access_token']}"},
        )
        key.raise_for_status()
    return BenchMerchant(created.json()["id"], key.json()["secret_key"])


async def _seed(base_url: str, merchant: BenchMerchant, count: int, settled_every: int) -> list[str]:
    auth = {"Authorization": f"Bearer {merchant.secret_key}"}
    body = {
        "amount": 2500,
        "currency": "usd",
        "description": "bench seed",
        "metadata": {"order_id": "1"},
        "return_url": "https://shop.example/thanks",
        "cancel_url": "https://shop.example/cart",
    }
    limit = asyncio.Semaphore(16)

    async def one(http: httpx.AsyncClient, n: int) -> str:
        async with limit:
            created = await http.post(f"{API}/charges", json=body, headers=auth)
            created.raise_for_status()
            charge_id: str = created.json()["id"]
            if n % settled_every == 0:  # some charges carry a capture and a refund, as real ones do
                paid = await http.post(
                    f"/checkout/{charge_id}/complete",
                    json={"paymentMethod": "card", "paymentMethodDetails": CARD_OK},
                )
                paid.raise_for_status()
                for path, payload in (("capture", {"amount": 2000}), ("refunds", {"amount": 500})):
                    step = await http.post(f"{API}/charges/{charge_id}/{path}", json=payload, headers=auth)
                    step.raise_for_status()
            return charge_id

    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        return list(await asyncio.gather(*(one(http, n) for n in range(count))))


def seed_charges(base_url: str, merchant: BenchMerchant, count: int, settled_every: int = 5) -> list[str]:
    """`count` charges of `merchant` (every `settled_every`-th paid, captured and partly refunded)."""
    return asyncio.run(_seed(base_url, merchant, count, settled_every))


def describe(stack: BenchStack) -> dict[str, Any]:
    return {
        "cores": [c.address for c in stack.cores],
        "gateways": stack.gateway_urls,
        "database": conninfo_to_dict(stack.database_dsn).get("dbname"),
        "logs": [str(p.log_path) for p in stack.processes()],
    }
