"""The billing run under load: N due subscriptions billed by the real periodic sweep, against the same
run's create-charge throughput and pgbench running the billing turn's own statements.

    BENCH_ONLY=billing make bench                      # this scenario alone, 1 core
    BENCH_ONLY=billing make bench CORES=2              # two cores
    python scripts/bench/bench.py --only billing --cores 2

Setup, not measured. A billing stack of its own (a fresh database; the cores start with
BILLING_INTERVAL_SECONDS=1 so the periodic sweep finds due work within a second). Through the API, for
BENCH_BILLING_MERCHANTS merchants: an exclusive and an inclusive tax rate, two monthly base prices and an
add-on price, then BENCH_BILLING_TEMPLATES subscriptions (each with its customer and card): a third
without tax, a third with each rate; every other one with an add-on item added with
`defer_to_next_cycle` (a pending proration), every fifth with a second add-on. Each is created ACTIVE and
invoiced and charged at once (its creation invoice). The rest of the BENCH_BILLING_SUBSCRIPTIONS are SQL
copies of those templates — subscription, items, pending prorations and creation invoice with fresh ids,
same customer (a customer may hold many subscriptions): creating 10,000 through the API would take
longer than the run measured. Then one transaction makes all of them due as a real billing run finds
them: the billing anchor and the current period moved 32 days into the past, and the period's
`invoice.upcoming` notice recorded as sent (it would have gone out three days before the end), so the
run does one step per subscription: the period end — the next period invoiced (items, add-ons,
prorations, tax), charged, and the payment recorded.

Measured: from that commit until no subscription is due and no cycle invoice waits for its charge
(polling the database every 0.2 s), subscriptions per second and the CPU seconds of the core(s) per
subscription; then the database check (every subscription: 2 invoices, the cycle one PAID with exactly one
charge; no subscription still due), then pgbench running the turn's statements (billing_pgbench.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import billing_pgbench
import httpx
import psycopg
import redis
import stack as stack_mod
from process_stats import CpuMeter, parent_pid, server_tree_cpu_seconds

API = stack_mod.API
CARD = {
    "type": "card",
    "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2099, "cvc": "123"},
}
POLL_SECONDS = 0.2
RUN_TIMEOUT_SECONDS = 1800.0
TARGET_VS_CREATE = 1 / 3
"""Issue 15: the billing run bills at least a third of the create-charge requests per second."""


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


@contextlib.contextmanager
def _billing_env() -> Iterator[None]:
    """The cores inherit the bench's environment (tests/support/processes.py): a 1 s billing sweep."""
    before = os.environ.get("BILLING_INTERVAL_SECONDS")
    os.environ["BILLING_INTERVAL_SECONDS"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("BILLING_INTERVAL_SECONDS", None)
        else:
            os.environ["BILLING_INTERVAL_SECONDS"] = before


def start_billing_stack(services: Any, admin_dsn: str, cores: int, gateways: int, log_level: str) -> Any:
    with _billing_env():
        return stack_mod.start_stack(services, admin_dsn, cores, gateways, log_level=log_level)


# -- setup ------------------------------------------------------------------------------------------------


async def _catalog(http: httpx.AsyncClient, auth: dict[str, str]) -> dict[str, Any]:
    async def ok(method: str, path: str, body: dict[str, Any]) -> Any:
        response = await http.request(method, f"{API}{path}", json=body, headers=auth)
        response.raise_for_status()
        return response.json()

    async def price(name: str, amount: int) -> str:
        plan = await ok("POST", "/plans", {"name": name})
        made = await ok(
            "POST",
            f"/plans/{plan['id']}/prices",
            {"amount_cents": amount, "currency": "usd", "interval": "monthly"},
        )
        return str(made["id"])

    exclusive = await ok(
        "POST",
        "/tax-rates",
        {"percentage": "8.25", "display_name": "Sales tax", "inclusive": False, "country": "US"},
    )
    inclusive = await ok(
        "POST", "/tax-rates", {"percentage": "20", "display_name": "VAT", "inclusive": True, "country": "GB"}
    )
    return {
        "bases": [await price("Basic", 2900), await price("Pro", 4900)],
        "addon": await price("Add-on", 1000),
        "rates": [None, exclusive["id"], inclusive["id"]],
    }


async def _templates(base_url: str, merchants: list[Any], count: int) -> list[str]:
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0) as http:
        catalogs = [await _catalog(http, {"Authorization": f"Bearer {m.secret_key}"}) for m in merchants]

        async def one(n: int) -> str:
            merchant = merchants[n % len(merchants)]
            catalog = catalogs[n % len(merchants)]
            auth = {"Authorization": f"Bearer {merchant.secret_key}"}
            async with limit:
                customer = await http.post(
                    f"{API}/customers",
                    json={"email": f"b{n}-{os.urandom(4).hex()}@bench.example"},
                    headers=auth,
                )
                customer.raise_for_status()
                customer_id = customer.json()["id"]
                method = await http.post(
                    f"{API}/customers/{customer_id}/payment-methods", json=CARD, headers=auth
                )
                method.raise_for_status()
                body: dict[str, Any] = {"customer_id": customer_id, "price_id": catalog["bases"][n % 2]}
                rate = catalog["rates"][n % 3]
                if rate is not None:
                    body["tax_rate_id"] = rate
                sub = await http.post(f"{API}/subscriptions", json=body, headers=auth)
                sub.raise_for_status()
                sub_id: str = sub.json()["id"]
                addons = (1 if n % 2 == 0 else 0) + (1 if n % 5 == 0 else 0)
                for q in range(addons):
                    item = await http.post(
                        f"{API}/subscriptions/{sub_id}/items",
                        json={
                            "priceId": catalog["addon"],
                            "quantity": q + 1,
                            "prorationBehavior": "defer_to_next_cycle",
                        },
                        headers=auth,
                    )
                    item.raise_for_status()
                return sub_id

        return list(await asyncio.gather(*(one(n) for n in range(count))))


# A fresh id of the same shape for copy k of `x` (prefix kept, hex body of the same length; ≤ 64).
_NEW_ID = (
    "(split_part({x}, '_', 1) || '_' || substr(md5({x} || ':' || {k}) || md5({k} || ':' || {x}), 1,"
    " length({x}) - length(split_part({x}, '_', 1)) - 1))"
)


def new_id(column: str, k: str = "m.k") -> str:
    return _NEW_ID.format(x=column, k=k)


def _columns(conn: psycopg.Connection[Any], table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s AND table_schema = 'public'"
        " ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [r[0] for r in rows if r[0] != "seq"]


def _copy(conn: psycopg.Connection[Any], table: str, owner: str, overrides: dict[str, str]) -> int:
    """INSERT … SELECT every row of the templates in `table` once per copy, some columns rewritten."""
    columns = _columns(conn, table)
    select = ", ".join(overrides.get(c, f"t.{c}") for c in columns)
    statement = (
        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}"  # noqa: S608 - names from the catalog
        f" FROM {table} t JOIN bench_copies m ON m.src = t.{owner}"
    )
    return conn.execute(statement).rowcount


def _copy_all(conn: psycopg.Connection[Any]) -> int:
    """Copies every (src, k) of the temp table bench_copies: subscription, items, invoices, prorations."""
    added = _copy(
        conn,
        "subscriptions",
        "id",
        {"id": new_id("t.id"), "latest_invoice": new_id("t.latest_invoice"), "idempotency_key": "NULL"},
    )  # fmt: skip
    _copy(conn, "subscription_items", "subscription_id",
          {"id": new_id("t.id"), "subscription_id": new_id("t.subscription_id")})  # fmt: skip
    _copy(conn, "invoices", "subscription_id",
          {"id": new_id("t.id"), "subscription_id": new_id("t.subscription_id")})  # fmt: skip
    _copy(
        conn,
        "pending_prorations",
        "subscription_id",
        {"id": new_id("t.id"), "subscription_id": new_id("t.subscription_id"), "item_id": new_id("t.item_id"),
         "invoice_id": f"CASE WHEN t.invoice_id IS NULL THEN NULL ELSE {new_id('t.invoice_id')} END"},
    )  # fmt: skip
    return added


def clone(dsn: str, total: int) -> int:
    """Copies of the template subscriptions (with items, unbilled prorations and the creation invoice)
    until there are `total`; returns how many were added."""
    with psycopg.connect(dsn) as conn:
        templates = conn.execute("SELECT count(*) FROM subscriptions").fetchone()[0]  # type: ignore[index]
        copies = max(0, math.ceil(total / templates) - 1)
        conn.execute(
            "CREATE TEMP TABLE bench_copies ON COMMIT DROP AS"
            " SELECT t.id AS src, k FROM (SELECT id, row_number() OVER (ORDER BY seq) - 1 AS rn"
            " FROM subscriptions) t, generate_series(1, %s) k WHERE k * %s + t.rn < %s",
            (copies, templates, total),
        )
        added = _copy_all(conn)
        conn.execute("ANALYZE")
    return added


def copy_rows(conn: psycopg.Connection[Any], src: str, ks: list[int], fence: int) -> None:
    """Copies number `ks` of subscription `src` at fence token `fence` (pgbench's own subscriptions)."""
    conn.execute(
        "CREATE TEMP TABLE bench_copies ON COMMIT DROP AS SELECT %s::text AS src, k FROM unnest(%s::int[]) k",
        (src, ks),
    )
    _copy_all(conn)
    conn.execute(
        "UPDATE subscriptions SET fence_token = %s WHERE id IN (SELECT "
        + new_id("src", "k")
        + " FROM bench_copies)",
        (fence,),
    )
    conn.commit()


def make_due(dsn: str) -> float:
    """Every subscription's current period ended a day or more ago, its notice sent; returns the commit's
    monotonic time (the run's start)."""
    with psycopg.connect(dsn) as conn:
        conn.execute(
            "UPDATE subscriptions SET billing_anchor = billing_anchor - interval '32 days',"
            " current_period_start = billing_anchor - interval '32 days',"
            " current_period_end = billing_anchor - interval '32 days' + interval '1 month',"
            # A save writes the stored next step, this bypasses saves: the period's end (its notice is
            # sent below, and the first invoice is paid, so nothing comes earlier).
            " next_step_at = billing_anchor - interval '32 days' + interval '1 month'"
            " WHERE status = 'ACTIVE'"
        )
        conn.execute(
            "INSERT INTO subscription_notices (subscription_id, kind, announced)"
            " SELECT id, 'invoice.upcoming', current_period_end FROM subscriptions WHERE status = 'ACTIVE'"
        )
    return time.monotonic()


_PROGRESS = """
SELECT (SELECT count(*) FROM subscriptions WHERE status = 'ACTIVE' AND current_period_end <= now()) AS due,
       (SELECT count(*) FROM invoices
         WHERE billing_reason = 'subscription_cycle' AND status = 'PAID') AS paid,
       (SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle' AND status = 'OPEN'
           AND attempt_count = 0) AS waiting"""
# The poll while the run goes: whether anything is still due or waiting, each an index probe (the
# billing run's own index of the next step, and the OPEN invoices'). Counting every invoice five times a
# second, as _PROGRESS does, cost PostgreSQL about a tenth of the run's time (BENCHMARKS.md, "Speed,
# round 5").
_STILL_RUNNING = """
SELECT EXISTS (SELECT 1 FROM subscriptions WHERE next_step_at <= now())
    OR EXISTS (SELECT 1 FROM invoices WHERE status = 'OPEN' AND billing_reason = 'subscription_cycle'
                  AND attempt_count = 0)
    OR NOT EXISTS (SELECT 1 FROM invoices WHERE status = 'PAID' AND billing_reason = 'subscription_cycle')"""


def wait_billed(dsn: str, total: int, started: float) -> tuple[float, dict[str, int]]:
    """Seconds from `started` until nothing is due and no cycle invoice waits for its charge."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        while True:
            running = conn.execute(_STILL_RUNNING).fetchone()[0]  # type: ignore[index]
            elapsed = time.monotonic() - started
            if not running:
                due, paid, waiting = conn.execute(_PROGRESS).fetchone()  # type: ignore[misc]
                return elapsed, {"due": due, "paid": paid, "waiting": waiting}
            if elapsed > RUN_TIMEOUT_SECONDS:
                raise RuntimeError(
                    f"billing run unfinished after {elapsed:.0f} s: due {due}, paid {paid}/{total}"
                )
            time.sleep(POLL_SECONDS)


_CHECKS = {
    "subscriptions_without_two_invoices": """
        SELECT count(*) FROM subscriptions s
         WHERE (SELECT count(*) FROM invoices i WHERE i.subscription_id = s.id) <> 2""",
    "subscriptions_without_one_cycle_invoice": """
        SELECT count(*) FROM subscriptions s
         WHERE (SELECT count(*) FROM invoices i WHERE i.subscription_id = s.id
                   AND i.billing_reason = 'subscription_cycle') <> 1""",
    "cycle_invoices_not_paid": (
        "SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle' AND status <> 'PAID'"
    ),
    "cycle_invoices_attempts_not_one": (
        "SELECT count(*) FROM invoices WHERE billing_reason = 'subscription_cycle' AND attempt_count <> 1"
    ),
    "invoice_attempts_without_exactly_one_charge": """
        SELECT count(*) FROM invoices i
         WHERE i.billing_reason = 'subscription_cycle'
           AND (SELECT count(*) FROM charges c WHERE c.invoice_id = i.id) <> i.attempt_count""",
    "cycle_invoice_charge_mismatch": """
        SELECT count(*) FROM invoices i JOIN charges c ON c.invoice_id = i.id
         WHERE i.billing_reason = 'subscription_cycle' AND (c.id <> i.charge_id OR c.amount <> i.total_cents
               OR c.status <> 'captured')""",
    "template_creation_invoices_without_one_charge": """
        SELECT count(*) FROM invoices i
         WHERE i.billing_reason = 'subscription_create'
           AND i.id IN (SELECT invoice_id FROM charges WHERE invoice_id IS NOT NULL)
           AND (SELECT count(*) FROM charges c WHERE c.invoice_id = i.id) <> 1""",
    "prorations_unbilled": "SELECT count(*) FROM pending_prorations WHERE NOT billed",
    "paid_cycle_invoices_without_credit": """
        SELECT count(*) FROM invoices i WHERE i.billing_reason = 'subscription_cycle'
           AND NOT EXISTS (SELECT 1 FROM invoice_credits c WHERE c.invoice_id = i.id)""",
    "still_due": "SELECT count(*) FROM subscriptions WHERE status = 'ACTIVE' AND current_period_end <= now()",
}


def verify(dsn: str, total: int) -> dict[str, Any]:
    """Each subscription billed exactly once: the database, read directly; every check must be 0."""
    with psycopg.connect(dsn) as conn:
        counts = {name: int(conn.execute(q).fetchone()[0]) for name, q in _CHECKS.items()}  # type: ignore[index]
        subs = int(conn.execute("SELECT count(*) FROM subscriptions").fetchone()[0])  # type: ignore[index]
        mix = conn.execute(
            "SELECT count(*) FILTER (WHERE tax_cents > 0 AND lines::text LIKE '%%\"inclusive\": true%%'),"
            " count(*) FILTER (WHERE tax_cents > 0), count(*) FILTER (WHERE jsonb_array_length(lines) > 1)"
            " FROM invoices WHERE billing_reason = 'subscription_cycle'"
        ).fetchone()
    counts["subscriptions_missing"] = abs(total - subs)
    return {
        "ok": all(v == 0 for v in counts.values()),
        "checks": counts,
        "cycle_invoices_taxed": mix[1] if mix else None,
        "cycle_invoices_with_several_lines": mix[2] if mix else None,
    }


# -- the servers' own CPU -----------------------------------------------------------------------------------


class ServerCpu:
    """PostgreSQL's and Redis's CPU seconds over the run, beside the core's: what a billed subscription
    costs the machine is mostly theirs. PostgreSQL is measured from /proc (its postmaster's tree), so
    only a server on this machine is measured (None otherwise); Redis reports its own (INFO cpu)."""

    def __init__(self, dsn: str, redis_url: str) -> None:
        self._redis_url = redis_url
        self._postmaster: int | None = None
        with psycopg.connect(dsn) as conn:
            backend = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])  # type: ignore[index]
            host = str(conn.info.host)
            if host.startswith("/") or host in ("127.0.0.1", "localhost", "::1"):
                self._postmaster = parent_pid(backend)

    def _redis_seconds(self) -> float:
        client = redis.Redis.from_url(self._redis_url)
        try:
            info = client.info("cpu")
        finally:
            client.close()
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    def start(self) -> None:
        self._pg = server_tree_cpu_seconds(self._postmaster) if self._postmaster else 0.0
        self._redis = self._redis_seconds()

    def stop(self, subscriptions: int) -> dict[str, float | None]:
        pg = server_tree_cpu_seconds(self._postmaster) - self._pg if self._postmaster else None
        redis_s = self._redis_seconds() - self._redis
        n = max(subscriptions, 1)
        return {
            "postgres_cpu_ms_per_subscription": round(1000 * pg / n, 3) if pg is not None else None,
            "redis_cpu_ms_per_subscription": round(1000 * redis_s / n, 3),
        }


# -- the scenario -----------------------------------------------------------------------------------------


def run(
    stack: Any,
    *,
    create_rps: float | None,
    pgbench_clients: int,
    pgbench_seconds: int,
    profile: Callable[[str, dict[str, int], int], list[Any]] | None = None,
) -> dict[str, Any]:
    total = _env_int("BENCH_BILLING_SUBSCRIPTIONS", 10_000)
    templates = min(total, _env_int("BENCH_BILLING_TEMPLATES", 300))
    merchants_n = _env_int("BENCH_BILLING_MERCHANTS", 2)
    base = stack.gateway_urls[0]
    print(
        f"billing run: {total:,} subscriptions ({templates} through the API, the rest SQL copies)", flush=True
    )
    merchants = [stack_mod.sign_up(base, f"billing{i}") for i in range(merchants_n)]
    started = time.monotonic()
    asyncio.run(_templates(base, merchants, templates))
    api_seconds = time.monotonic() - started
    print(f"  {templates} template subscriptions through the API in {api_seconds:.1f} s", flush=True)
    started = time.monotonic()
    copied = clone(stack.database_dsn, total)
    clone_seconds = time.monotonic() - started
    print(f"  {copied:,} SQL copies in {clone_seconds:.1f} s", flush=True)
    samples = billing_pgbench.sample_statements(stack.database_dsn)
    pids = {name: p.pid for name, p in stack.named().items() if name.startswith("core")}
    time.sleep(2.0)  # actors of the setup passivated, the sweep idle
    meter = CpuMeter(pids)
    servers = ServerCpu(stack.database_dsn, stack.redis_url)
    servers.start()
    meter.start()
    profilers = profile("billing", pids, 20) if profile is not None else []
    run_started = make_due(stack.database_dsn)
    seconds, progress = wait_billed(stack.database_dsn, total, run_started)
    cpu = meter.stop(total)
    server_cpu = servers.stop(total)
    for profiler in profilers:
        profiler.wait(timeout=60)
    rate = total / seconds
    core_cpu_s = (
        sum(v for k, v in cpu.items() if k.endswith("_cpu_ms_per_req") and k.startswith("core")) / 1000
    )
    pg_ms = server_cpu["postgres_cpu_ms_per_subscription"]
    print(
        f"  billed {total:,} in {seconds:.1f} s: {rate:,.0f} subscriptions/s, "
        f"core CPU {core_cpu_s * 1000:.2f} ms per subscription, PostgreSQL {_ms(pg_ms)} ms, "
        f"Redis {_ms(server_cpu['redis_cpu_ms_per_subscription'])} ms, "
        f"machine busy {cpu['machine_busy']:.0%}",
        flush=True,
    )
    check = verify(stack.database_dsn, total)
    print(f"  check: {'every check 0' if check['ok'] else check['checks']}", flush=True)
    pg = billing_pgbench.run(
        stack.database_dsn, samples, clients=pgbench_clients, seconds=pgbench_seconds, copy_rows=copy_rows
    )
    per_sub = pg.tps  # one transaction bills one subscription (both saves and the charge)
    print(f"  pgbench, the billing turn's statements: {per_sub:,.0f} TPS (c={pg.clients})", flush=True)
    out: dict[str, Any] = {
        "subscriptions": total,
        "templates_via_api": templates,
        "merchants": merchants_n,
        "setup": {"api_seconds": round(api_seconds, 1), "sql_copy_seconds": round(clone_seconds, 1)},
        "seconds": round(seconds, 2),
        "subscriptions_per_second": round(rate, 1),
        "progress_at_end": progress,
        "cpu": cpu,
        "core_cpu_ms_per_subscription": round(core_cpu_s * 1000, 3),
        **server_cpu,
        "pgbench": pg.as_json(),
        "vs_pgbench": round(rate / per_sub, 3) if per_sub else None,
        "create_rps": create_rps,
        "vs_create": round(rate / create_rps, 3) if create_rps else None,
        "target_vs_create": round(TARGET_VS_CREATE, 3),
        "consistency": check,
    }
    out["meets_target"] = out["vs_create"] is not None and out["vs_create"] >= TARGET_VS_CREATE
    if profilers:
        out["profiles"] = "bench/tmp/profiles/billing-*"
    return out


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def table(billing: dict[str, Any]) -> list[str]:
    cpu = billing["cpu"]
    return [
        "| subscriptions | seconds | billed/s | core CPU ms/sub | PostgreSQL CPU ms/sub | machine busy "
        "| pgbench TPS (turn) | ÷ pgbench | create req/s | ÷ create | target ≥ 1/3 | check |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
        f"| {billing['subscriptions']:,} | {billing['seconds']:.1f} "
        f"| {billing['subscriptions_per_second']:,.0f} "
        f"| {billing['core_cpu_ms_per_subscription']:.2f} "
        f"| {_ms(billing.get('postgres_cpu_ms_per_subscription'))} "
        f"| {cpu['machine_busy']:.0%} "
        f"| {billing['pgbench']['rps']:,.0f} | {billing['vs_pgbench']:.0%} "
        f"| {billing['create_rps'] or 0:,.0f} | {(billing['vs_create'] or 0):.0%} "
        f"| {'✅' if billing['meets_target'] else '❌'} "
        f"| {'0' if billing['consistency']['ok'] else 'FAILED'} |",
    ]
